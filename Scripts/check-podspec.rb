# Helper of Scripts/check-podspec.sh: evaluates EasyNetwork.podspec with a tiny stand-in for
# CocoaPods' `Pod::Spec` DSL (it records attributes and subspecs; CocoaPods is not installed
# here) and checks it against `swift package dump-package`.
#
#   ruby Scripts/check-podspec.rb PODSPEC DUMP_PACKAGE_JSON          checks, prints a summary
#   ruby Scripts/check-podspec.rb PODSPEC DUMP_PACKAGE_JSON --compile  prints what CocoaPods
#       compiles for a target that selects every subspec: line 1 the module name, line 2 the
#       Swift flags, then one source file a line
require 'json'

module Pod
  # Records what a podspec sets. `spec.name = x` stores x, `spec.name` reads it back,
  # `spec.ios.deployment_target = v` stores 'ios.deployment_target'.
  class Spec
    attr_reader :attributes, :subspecs, :dependencies, :parent

    def initialize(name = nil, parent = nil)
      @attributes = {}
      @subspecs = []
      @dependencies = []
      @parent = parent
      @attributes['name'] = name if name
      yield self if block_given?
      Spec.root ||= self unless parent
    end

    class << self
      attr_accessor :root
    end

    def subspec(name, &block)
      @subspecs << Spec.new(name, self, &block)
    end

    def dependency(name, *requirements)
      @dependencies << [name, *requirements]
    end

    def full_name
      parent ? "#{parent.full_name}/#{@attributes['name']}" : @attributes['name']
    end

    %w[ios osx macos tvos watchos visionos].each do |platform|
      define_method(platform) { PlatformProxy.new(self, platform == 'macos' ? 'osx' : platform) }
    end

    def method_missing(method, *args)
      name = method.to_s
      if name.end_with?('=')
        @attributes[name.chomp('=')] = args.length == 1 ? args.first : args
      elsif args.empty?
        @attributes[name]
      else
        super
      end
    end

    def respond_to_missing?(*)
      false
    end
  end
  Specification = Spec

  # `spec.ios.deployment_target = '13.0'`
  class PlatformProxy
    def initialize(spec, platform)
      @spec = spec
      @platform = platform
    end

    def method_missing(method, *args)
      name = method.to_s
      return super unless name.end_with?('=') && args.length == 1

      @spec.attributes["#{@platform}.#{name.chomp('=')}"] = args.first
    end

    def respond_to_missing?(*)
      false
    end
  end
end

podspec_path, dump_path, mode = ARGV
abort 'usage: check-podspec.rb PODSPEC DUMP_PACKAGE_JSON [--compile]' unless podspec_path && dump_path
root_dir = File.dirname(File.expand_path(podspec_path))
Dir.chdir(root_dir)

begin
  eval(File.read(podspec_path), TOPLEVEL_BINDING, podspec_path) # rubocop:disable Security/Eval
rescue StandardError, ScriptError => e
  abort "check-podspec: #{podspec_path} does not evaluate: #{e.class}: #{e.message}"
end
spec = Pod::Spec.root or abort "check-podspec: #{podspec_path} defines no Pod::Spec"
package = JSON.parse(File.read(dump_path))

list = ->(value) { Array(value).flatten.compact.map(&:to_s) }
glob = ->(patterns) { list.call(patterns).flat_map { |p| Dir.glob(p) }.select { |f| File.file?(f) }.sort.uniq }
module_name = spec.module_name || spec.name

if mode == '--compile'
  flags = ['-D', 'COCOAPODS'] # what CocoaPods itself adds to every Swift pod target
  configs = [spec, *spec.subspecs].map { |s| s.pod_target_xcconfig || {} }
  configs.each { |c| flags.concat(c['OTHER_SWIFT_FLAGS'].to_s.split - ['$(inherited)']) }
  conditions = configs.flat_map { |c| c['SWIFT_ACTIVE_COMPILATION_CONDITIONS'].to_s.split - ['$(inherited)'] }
  flags.concat(conditions.flat_map { |c| ['-D', c] })
  version = list.call(spec.swift_versions || spec.swift_version).max_by(&:to_f)
  flags.concat(['-swift-version', version.to_f.to_i.to_s]) if version
  puts module_name, flags.join(' ')
  puts glob.call(spec.subspecs.flat_map { |s| list.call(s.source_files) })
  exit 0
end

failures = []
fail_with = ->(message) { failures << message }

# Library products, each with its one target: the subspec of product EasyNetworkFoo is Foo,
# the core's (product EasyNetwork) is Core.
targets = package['targets'].to_h { |t| [t['name'], t] }
libraries = package['products'].select { |p| p['type'].key?('library') }
subspec_of = lambda do |module_name_|
  rest = module_name_.delete_prefix(spec.name)
  rest.empty? ? 'Core' : rest
end
by_name = spec.subspecs.to_h { |s| [s.name, s] }

# Shared targets that are no product (EasyNetworkDigest: SHA-256 for the cache and pinning,
# which may not import each other) get a subspec too, named and checked like a product's,
# so that the subspecs of the products that use them can depend on it.
product_targets = libraries.flat_map { |p| p['targets'] }
shared = libraries.flat_map { |p| targets.fetch(p['targets'].first, {})['dependencies'] || [] }
                  .filter_map { |d| d.values.first&.first }
                  .select { |n| targets.key?(n) && targets[n]['type'] == 'regular' && !product_targets.include?(n) }.uniq
checked = libraries + shared.map { |t| { 'name' => t, 'targets' => [t] } }

checked.each do |product|
  if product['targets'].length != 1
    fail_with.call("product #{product['name']} has #{product['targets'].length} targets; one subspec maps one module")
    next
  end
  target = targets.fetch(product['targets'].first)
  expected = subspec_of.call(target['name'])
  subspec = by_name[expected]
  folder = target['path'] || "Sources/#{target['name']}"
  wanted = target['dependencies'].map do |d|
    kind, value = d.first
    if %w[byName target].include?(kind) && targets.key?(value.first)
      "#{spec.name}/#{subspec_of.call(value.first)}"
    else
      fail_with.call("#{target['name']} depends on #{kind} #{value.first}, which a subspec cannot mirror")
      nil
    end
  end.compact.sort
  manifest = File.join(folder, 'PrivacyInfo.xcprivacy')
  unless subspec
    var = expected.downcase
    block = ["  s.subspec '#{expected}' do |#{var}|", "    #{var}.source_files = '#{folder}/**/*.swift'"]
    if File.file?(manifest)
      block << "    #{var}.resource_bundles = { '#{target['name']}' => ['#{manifest}'] }"
    end
    wanted.each { |w| block << "    #{var}.dependency '#{w}'" }
    block += ["    #{var}.frameworks = 'Foundation'", '  end']
    fail_with.call("library product #{product['name']} has no subspec '#{spec.name}/#{expected}'; add:\n#{block.join("\n")}")
    next
  end

  # source_files: exactly the module's Swift files
  excluded = list.call(target['exclude']).map { |e| File.join(folder, e) }
  module_files = Dir.glob(File.join(folder, '**', '*.swift')).reject do |f|
    excluded.any? { |e| f == e || f.start_with?("#{e}/") }
  end.sort
  covered = glob.call(subspec.source_files)
  missing = module_files - covered
  extra = covered - module_files
  fail_with.call("#{subspec.full_name}: source_files miss #{missing.length} file(s) of #{folder}, e.g. #{missing.first}") if missing.any?
  fail_with.call("#{subspec.full_name}: source_files take #{extra.length} file(s) from outside #{folder}, e.g. #{extra.first}") if extra.any?
  fail_with.call("#{subspec.full_name}: source_files match no file") if covered.empty?

  # dependencies: the target's, as subspecs of this pod
  declared = subspec.dependencies.map(&:first).sort
  unless wanted == declared
    fail_with.call("#{subspec.full_name}: dependencies #{declared.inspect}, but target #{target['name']} " \
                   "depends on #{wanted.inspect}")
  end

  # privacy manifest at the module's root: shipped in a resource bundle of its subspec
  if File.file?(manifest)
    bundled = glob.call((subspec.resource_bundles || {}).values)
    fail_with.call("#{subspec.full_name}: #{manifest} is in no resource bundle (resource_bundles)") unless bundled.include?(manifest)
  end
  nested = Dir.glob(File.join(folder, '*', '**', 'PrivacyInfo.xcprivacy'))
  nested.each do |n|
    next if excluded.include?(n)

    fail_with.call("#{n}: a manifest inside #{folder} that Package.swift does not exclude; ship it or exclude it")
  end
end

# One module: what CocoaPods needs that SwiftPM gives by itself
swift_flags = [spec, *spec.subspecs].map { |s| (s.pod_target_xcconfig || {})['OTHER_SWIFT_FLAGS'].to_s }.join(' ')
all_sources = glob.call(spec.subspecs.flat_map { |s| list.call(s.source_files) })
package_decl = /^\s*(?:@\w+\s+)*package\s+(?:final\s+|static\s+)*(?:func|var|let|init|class|struct|enum|protocol|typealias|subscript)\b/
users = all_sources.select { |f| File.read(f).match?(package_decl) }
if users.any? && !swift_flags.include?('-package-name')
  fail_with.call("#{users.length} file(s) declare `package` symbols (e.g. #{users.first}), but pod_target_xcconfig's " \
                 "OTHER_SWIFT_FLAGS has no -package-name: CocoaPods passes none, so they do not compile")
end
all_sources.each do |f|
  guarded = false
  File.foreach(f) do |line|
    guarded = true if line.start_with?('#if !COCOAPODS')
    guarded = false if line.start_with?('#endif')
    next unless line.match?(/^import\s+#{Regexp.escape(module_name)}\s*$/) && !guarded

    fail_with.call("#{f}: `import #{module_name}` outside `#if !COCOAPODS`: in the pod it is this file's own module")
  end
end

product_subspecs = checked.map { |p| subspec_of.call(p['targets'].first) }
(by_name.keys - product_subspecs).each do |extra|
  fail_with.call("subspec #{spec.name}/#{extra} matches no library product (nor a target one depends on) of Package.swift")
end
all_bundled = glob.call(spec.subspecs.flat_map { |s| (s.resource_bundles || {}).values })
bundle_patterns = list.call(spec.subspecs.flat_map { |s| (s.resource_bundles || {}).values })
bundle_patterns.each do |p|
  fail_with.call("resource_bundles pattern #{p} matches no file") if Dir.glob(p).empty?
end
bundle_names = spec.subspecs.flat_map { |s| (s.resource_bundles || {}).keys }
fail_with.call("resource bundle names repeat: #{bundle_names.inspect}") if bundle_names.uniq.length != bundle_names.length

unless spec.default_subspecs.to_s == 'Core' || list.call(spec.default_subspecs) == ['Core']
  fail_with.call("default_subspecs is #{spec.default_subspecs.inspect}; it should be the core ('Core')")
end

# version: the top released section of CHANGELOG.md
version = spec.version.to_s
changelog = File.exist?('CHANGELOG.md') ? File.read('CHANGELOG.md') : ''
released = changelog[/^## \[(\d+\.\d+\.\d+[^\]]*)\]/, 1]
version_note = if released.nil?
                 "version #{version} (CHANGELOG.md has no released section yet)"
               elsif released == version
                 "version #{version} = CHANGELOG.md's top release"
               else
                 fail_with.call("version #{version}, but CHANGELOG.md's top release is #{released}")
                 nil
               end
fail_with.call("version #{version.inspect} is not SemVer x.y.z") unless version.match?(/\A\d+\.\d+\.\d+\z/)

# version: the release tags. CocoaPods reads a release's podspec at its tag (`:tag => '0.2.0'`),
# so a tagged commit's podspec names that tag, and a later one never names an older version.
release_tags = lambda do |*selection|
  IO.popen(['git', 'tag', '-l', *selection], err: File::NULL, &:read).to_s.lines.map(&:strip)
    .grep(/\Av?\d+\.\d+\.\d+\z/).map { |t| t.delete_prefix('v') }
rescue SystemCallError
  []
end
if version.match?(/\A\d+\.\d+\.\d+\z/)
  at_head = release_tags.call('--points-at', 'HEAD')
  at_head.reject { |t| t == version }.each do |t|
    fail_with.call("HEAD is tagged #{t}, but the version is #{version}: `pod` with :tag => '#{t}' would read this podspec")
  end
  last = release_tags.call('--merged', 'HEAD').max_by { |t| Gem::Version.new(t) }
  if last && Gem::Version.new(last) > Gem::Version.new(version)
    fail_with.call("version #{version} is below the last release tag #{last} (in the history of HEAD)")
  end
  version_note += ", the tag at HEAD" if version_note && at_head.include?(version)
end

# license
license = spec.license
license_file = license.is_a?(Hash) ? (license[:file] || license['file']) : nil
license_type = license.is_a?(Hash) ? (license[:type] || license['type']) : license
if license_file.nil? || !File.file?(license_file)
  fail_with.call("license file #{license_file.inspect} does not exist")
elsif license_type && !File.read(license_file).lines.first.to_s.include?(license_type.to_s)
  fail_with.call("license type #{license_type} is not what #{license_file}'s first line says")
end

# platforms
platform_of = { 'ios' => 'ios', 'macos' => 'osx', 'tvos' => 'tvos', 'watchos' => 'watchos', 'visionos' => 'visionos' }
norm = ->(v) { v.to_s.split('.').map(&:to_i).then { |parts| parts + [0] * (3 - parts.length) } }
declared_platforms = spec.attributes.select { |k, _| k.end_with?('.deployment_target') }
                         .to_h { |k, v| [k.split('.').first, v.to_s] }
package_platforms = (package['platforms'] || []).to_h { |p| [platform_of.fetch(p['platformName'], p['platformName']), p['version']] }
(package_platforms.keys | declared_platforms.keys).sort.each do |p|
  ours = declared_platforms[p]
  theirs = package_platforms[p]
  next if ours && theirs && norm.call(ours) == norm.call(theirs)

  fail_with.call("deployment target #{p}: podspec #{ours || 'none'}, Package.swift #{theirs || 'none'}")
end

# Swift language mode
modes = list.call(package['swiftLanguageModes'] || package['swiftLanguageVersions'])
swift_versions = list.call(spec.swift_versions || spec.swift_version)
unless modes.empty? || modes.all? { |m| swift_versions.any? { |v| v.to_f.to_i == m.to_f.to_i } }
  fail_with.call("swift_versions #{swift_versions.inspect}, Package.swift's language modes #{modes.inspect}")
end

source = spec.source || {}
git = source[:git] || source['git']
fail_with.call('source has no git address') unless git
fail_with.call("source tag #{(source[:tag] || source['tag']).inspect} is not the version") unless (source[:tag] || source['tag']).to_s == version

if failures.any?
  failures.each { |f| warn "check-podspec: #{f}" }
  warn "check-podspec: #{failures.length} problem(s) in #{File.basename(podspec_path)}"
  exit 1
end
puts "podspec #{spec.name} #{version_note}; subspecs #{spec.subspecs.map(&:name).join(', ')} = library products " \
     "#{libraries.map { |p| p['name'] }.join(', ')}#{shared.empty? ? '' : " and shared targets #{shared.join(', ')}"}; sources, dependencies, #{all_bundled.length} privacy manifest(s), " \
     "platforms #{declared_platforms.map { |k, v| "#{k} #{v}" }.join(', ')}, license #{license_file} match"
puts "note: source #{git} is a placeholder: set the repository's address before publishing" if git.include?('<')
