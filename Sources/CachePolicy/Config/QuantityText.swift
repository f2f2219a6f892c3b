import HTTPWire

/// Durations and sizes as people write them in the config: `"30s"`, `"5m"`, `"1h"`, `"7d"`,
/// `"250ms"` or a number of seconds; `"256MB"`, `"1GiB"` or a number of bytes.
public enum QuantityText {
    /// Milliseconds, or nil when the text is not a duration.
    public static func milliseconds(_ text: String) -> Int64? {
        let units: [(suffix: String, factor: Double)] = [
            ("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000), ("w", 604_800_000),
        ]
        return scaled(text, units: units)
    }

    /// Bytes, or nil when the text is not a size. Decimal (KB, MB, GB) and binary (KiB, MiB, GiB) units.
    public static func bytes(_ text: String) -> Int64? {
        let units: [(suffix: String, factor: Double)] = [
            ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("TiB", 1_099_511_627_776),
            ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000),
            ("K", 1024), ("M", 1_048_576), ("G", 1_073_741_824), ("B", 1),
        ]
        return scaled(text, units: units)
    }

    private static func scaled(_ text: String, units: [(suffix: String, factor: Double)]) -> Int64? {
        let trimmed = text.trimmingHTTPWhitespace()
        // Longest suffix first, so "ms" is not read as "m" + "s".
        for unit in units.sorted(by: { $0.suffix.count > $1.suffix.count }) where trimmed.hasSuffix(unit.suffix) {
            let number = trimmed.dropLast(unit.suffix.count).trimmingCharactersInSpaces()
            guard let value = Double(number), value >= 0, value.isFinite else { return nil }
            return Int64((value * unit.factor).rounded())
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharactersInSpaces() -> String { String(self).trimmingHTTPWhitespace() }
}
