import CachePolicy
import Foundation

/// Finds and reads the config file: `--config`, then `$LARDER_CONFIG`, then
/// `/etc/larder/larder.json`, else the built-in default.
struct ConfigLoader {
    /// Exit status for a bad config (EX_CONFIG), which systemd is told not to restart on.
    static let badConfigExitCode: Int32 = 78

    var explicitPath: String?

    /// The file in use, or nil for the built-in default.
    var path: String? {
        if let explicitPath { return explicitPath }
        if let fromEnvironment = ProcessInfo.processInfo.environment["LARDER_CONFIG"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        let system = "/etc/larder/larder.json"
        return FileManager.default.fileExists(atPath: system) ? system : nil
    }

    func load() throws(ConfigError) -> Config {
        guard let path else { return .default }
        return try Self.load(path: path)
    }

    static func load(path: String) throws(ConfigError) -> Config {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(problems: [ConfigProblem(path: path, reason: "cannot read the file")])
        }
        return try Config.parse([UInt8](data))
    }
}
