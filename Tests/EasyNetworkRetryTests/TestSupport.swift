// The package's shared test helpers (Tests/EasyNetworkTestSupport), visible to every file
// of this target.
@_exported import EasyNetworkTestSupport
