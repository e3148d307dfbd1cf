# The CocoaPods face of Package.swift: one subspec per library product. Scripts/check-podspec.sh
# (run by .ci/run) checks it against `swift package dump-package`, CHANGELOG.md and LICENSE.
#
# WHERE THE SOURCES LIVE: not settled yet (the project has no public remote). This placeholder
# is the one place that names it; the README's install snippets use the same one. Replace it
# before the first `pod spec lint` (apps take the pod from the repository at a release tag;
# it is not published on the CocoaPods trunk).
repository = 'https://github.com/<you>/EasyNetwork'

Pod::Spec.new do |s|
  s.name = 'EasyNetwork'
  s.version = '0.3.0'
  s.summary = 'A small, Foundation-only Swift 6 networking layer for SDK authors.'
  s.description = <<~DESC
    EasyNetwork runs requests as asynchronous Operations on a NetworkQueue, one URLSession per
    host, and maps responses into your types. Foundation only, no dependencies, silent inside
    somebody else's app, Swift 6 strict concurrency. The optional subspecs add tokens and logging
    (Plugins), chains and batches (Orchestration), a disk response cache (Cache), resumable
    downloads to disk (Downloads), public-key pinning (Pinning), an outbox of requests stored
    on disk until delivered (Outbox), fleet-safe retries (Retry: a retry budget, Retry-After
    pauses and a circuit breaker per host), response envelopes and business codes
    (Envelopes), multipart uploads (Uploads) and a loopback test server (Testing).
  DESC
  s.homepage = repository
  s.license = { type: 'MIT', file: 'LICENSE' }
  s.authors = 'The EasyNetwork authors'
  s.source = { git: "#{repository}.git", tag: s.version.to_s }

  s.swift_versions = ['6.0']
  s.ios.deployment_target = '13.0'
  s.osx.deployment_target = '10.15'
  s.tvos.deployment_target = '13.0'
  s.watchos.deployment_target = '6.0'

  # CocoaPods compiles every subspec a target selects into ONE module, named after the pod:
  # with CocoaPods you write `import EasyNetwork` only. CocoaPods defines COCOAPODS for Swift
  # pod targets, so the optional modules' own `import EasyNetwork` sits behind `#if !COCOAPODS`.
  # `package` declarations need a package name, which SwiftPM passes and CocoaPods does not.
  s.pod_target_xcconfig = { 'OTHER_SWIFT_FLAGS' => '$(inherited) -package-name EasyNetwork' }

  s.default_subspecs = 'Core'

  s.subspec 'Core' do |core|
    core.source_files = 'Sources/EasyNetwork/**/*.swift'
    core.resource_bundles = { 'EasyNetwork' => ['Sources/EasyNetwork/PrivacyInfo.xcprivacy'] }
    core.frameworks = 'Foundation'
  end

  s.subspec 'Plugins' do |plugins|
    plugins.source_files = 'Sources/EasyNetworkPlugins/**/*.swift'
    plugins.resource_bundles = { 'EasyNetworkPlugins' => ['Sources/EasyNetworkPlugins/PrivacyInfo.xcprivacy'] }
    plugins.dependency 'EasyNetwork/Core'
    plugins.dependency 'EasyNetwork/Features'
    plugins.frameworks = 'Foundation'
  end

  s.subspec 'Orchestration' do |orchestration|
    orchestration.source_files = 'Sources/EasyNetworkOrchestration/**/*.swift'
    orchestration.resource_bundles = {
      'EasyNetworkOrchestration' => ['Sources/EasyNetworkOrchestration/PrivacyInfo.xcprivacy'],
    }
    orchestration.dependency 'EasyNetwork/Core'
    orchestration.dependency 'EasyNetwork/Features'
    orchestration.frameworks = 'Foundation'
  end

  s.subspec 'Cache' do |cache|
    cache.source_files = 'Sources/EasyNetworkCache/**/*.swift'
    cache.resource_bundles = { 'EasyNetworkCache' => ['Sources/EasyNetworkCache/PrivacyInfo.xcprivacy'] }
    cache.dependency 'EasyNetwork/Core'
    cache.dependency 'EasyNetwork/Features'
    cache.dependency 'EasyNetwork/Digest'
    cache.frameworks = 'Foundation'
  end

  # SHA-256, shared by Cache and Pinning (a SwiftPM target, not a product): select those instead.
  s.subspec 'Digest' do |digest|
    digest.source_files = 'Sources/EasyNetworkDigest/**/*.swift'
    digest.resource_bundles = { 'EasyNetworkDigest' => ['Sources/EasyNetworkDigest/PrivacyInfo.xcprivacy'] }
    digest.frameworks = 'Foundation'
  end

  # Installing a host's optional features, shared by Plugins, Orchestration, Cache, Pinning and
  # Retry (a SwiftPM target, not a product): select those instead.
  s.subspec 'Features' do |features|
    features.source_files = 'Sources/EasyNetworkFeatures/**/*.swift'
    features.resource_bundles = { 'EasyNetworkFeatures' => ['Sources/EasyNetworkFeatures/PrivacyInfo.xcprivacy'] }
    features.dependency 'EasyNetwork/Core'
    features.frameworks = 'Foundation'
  end

  # Backoff and Retry-After, shared by Outbox and Retry (a SwiftPM target, not a product): select those instead.
  s.subspec 'Backoff' do |backoff|
    backoff.source_files = 'Sources/EasyNetworkBackoff/**/*.swift'
    backoff.resource_bundles = { 'EasyNetworkBackoff' => ['Sources/EasyNetworkBackoff/PrivacyInfo.xcprivacy'] }
    backoff.frameworks = 'Foundation'
  end

  s.subspec 'Downloads' do |downloads|
    downloads.source_files = 'Sources/EasyNetworkDownloads/**/*.swift'
    downloads.resource_bundles = { 'EasyNetworkDownloads' => ['Sources/EasyNetworkDownloads/PrivacyInfo.xcprivacy'] }
    downloads.dependency 'EasyNetwork/Core'
    downloads.frameworks = 'Foundation'
  end

  s.subspec 'Pinning' do |pinning|
    pinning.source_files = 'Sources/EasyNetworkPinning/**/*.swift'
    pinning.resource_bundles = { 'EasyNetworkPinning' => ['Sources/EasyNetworkPinning/PrivacyInfo.xcprivacy'] }
    pinning.dependency 'EasyNetwork/Core'
    pinning.dependency 'EasyNetwork/Features'
    pinning.dependency 'EasyNetwork/Digest'
    pinning.frameworks = 'Foundation', 'Security'
  end

  s.subspec 'Outbox' do |outbox|
    outbox.source_files = 'Sources/EasyNetworkOutbox/**/*.swift'
    outbox.resource_bundles = { 'EasyNetworkOutbox' => ['Sources/EasyNetworkOutbox/PrivacyInfo.xcprivacy'] }
    outbox.dependency 'EasyNetwork/Core'
    outbox.dependency 'EasyNetwork/Backoff'
    outbox.frameworks = 'Foundation'
  end

  s.subspec 'Retry' do |retries|
    retries.source_files = 'Sources/EasyNetworkRetry/**/*.swift'
    retries.resource_bundles = { 'EasyNetworkRetry' => ['Sources/EasyNetworkRetry/PrivacyInfo.xcprivacy'] }
    retries.dependency 'EasyNetwork/Core'
    retries.dependency 'EasyNetwork/Features'
    retries.dependency 'EasyNetwork/Backoff'
    retries.frameworks = 'Foundation'
  end

  s.subspec 'Envelopes' do |envelopes|
    envelopes.source_files = 'Sources/EasyNetworkEnvelopes/**/*.swift'
    envelopes.resource_bundles = { 'EasyNetworkEnvelopes' => ['Sources/EasyNetworkEnvelopes/PrivacyInfo.xcprivacy'] }
    envelopes.dependency 'EasyNetwork/Core'
    envelopes.frameworks = 'Foundation'
  end

  s.subspec 'Uploads' do |uploads|
    uploads.source_files = 'Sources/EasyNetworkUploads/**/*.swift'
    uploads.resource_bundles = { 'EasyNetworkUploads' => ['Sources/EasyNetworkUploads/PrivacyInfo.xcprivacy'] }
    uploads.dependency 'EasyNetwork/Core'
    uploads.frameworks = 'Foundation'
  end

  # For test targets. Like the SwiftPM product it needs no other subspec (and no XCTest).
  s.subspec 'Testing' do |testing|
    testing.source_files = 'Sources/EasyNetworkTesting/**/*.swift'
    testing.frameworks = 'Foundation'
  end
end
