import CachePolicy
import Foundation

/// Where Larder keeps its files. The cache: the config's `cache.directory`, else `$CACHE_DIRECTORY`
/// (set by systemd's `CacheDirectory=`), else `$XDG_CACHE_HOME/larder`, else `~/.cache/larder`.
/// The offline queue, which must survive a wiped cache: `$STATE_DIRECTORY`, else
/// `$XDG_STATE_HOME/larder`, else `~/.local/state/larder`.
enum Directories {
    static func state() -> String {
        let environment = ProcessInfo.processInfo.environment
        if let systemd = environment["STATE_DIRECTORY"], !systemd.isEmpty {
            return String(systemd.split(separator: ":").first ?? Substring(systemd))
        }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/larder" }
        return NSHomeDirectory() + "/.local/state/larder"
    }

    static func cache(_ config: Config) -> String {
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
