import CachePolicy
import Foundation

/// Where the cache lives: the config's `cache.directory`, else `$CACHE_DIRECTORY` (set by systemd's
/// `CacheDirectory=`), else `$XDG_CACHE_HOME/larder`, else `~/.cache/larder`.
enum CacheDirectory {
    static func resolve(_ config: Config) -> String {
        if let directory = config.cache.directory { return directory }
        let environment = ProcessInfo.processInfo.environment
        if let systemd = environment["CACHE_DIRECTORY"], !systemd.isEmpty {
            // systemd may list several, separated by colons; Larder asks for one.
            return String(systemd.split(separator: ":").first ?? Substring(systemd))
        }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/larder" }
        return NSHomeDirectory() + "/.cache/larder"
    }
}
