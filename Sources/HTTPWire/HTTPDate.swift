/// HTTP-date (RFC 9110 §5.6.7): always UTC, written as IMF-fixdate, read in all three historical forms.
/// Calendar arithmetic is done by hand (proleptic Gregorian, no time zones), so no formatter or locale is involved.
public enum HTTPDate {
    private static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the instants a four-digit year can name.
    static let earliest: Int64 = -62_167_219_200
    static let latest: Int64 = 253_402_300_799

    /// IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT". Instants outside years 0000–9999 are clamped to them.
    public static func format(secondsSince1970: Int64) -> String {
        let seconds = min(max(secondsSince1970, earliest), latest)
        let days = floorDivide(seconds, by: 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let date = civil(fromDays: days)
        // 1970-01-01 was a Thursday (index 4 with Sunday as 0).
        let weekday = Int(((days % 7) + 11) % 7)

        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        bytes.append(contentsOf: dayNames[weekday].utf8)
        bytes.append(contentsOf: ", ".utf8)
        appendDigits(date.day, count: 2, to: &bytes)
        bytes.append(0x20)
        bytes.append(contentsOf: monthNames[date.month - 1].utf8)
        bytes.append(0x20)
        appendDigits(date.year, count: 4, to: &bytes)
        bytes.append(0x20)
        appendDigits(secondOfDay / 3600, count: 2, to: &bytes)
        bytes.append(0x3A)
        appendDigits(secondOfDay / 60 % 60, count: 2, to: &bytes)
        bytes.append(0x3A)
        appendDigits(secondOfDay % 60, count: 2, to: &bytes)
        bytes.append(contentsOf: " GMT".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Seconds since 1970 for an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), an obsolete RFC 850 date
    /// ("Sunday, 06-Nov-94 08:49:37 GMT") or an asctime date ("Sun Nov  6 08:49:37 1994"); nil when the text is
    /// none of these or names an impossible date. The weekday must be a valid name but is not checked against the
    /// date. An RFC 850 two-digit year means 2000–2069 for 00–69 and 1970–1999 for 70–99: the RFC's rule needs
    /// the current time, which this pure function does not have, and the fixed pivot agrees with it until 2070.
    public static func parse(_ text: String) -> Int64? {
        // Read in place: a miss parses two or three dates of the origin's head, and a copy of each was an allocation.
        text.withUTF8Bytes { bytes in
            switch bytes.count {
            case 29: parseIMFFixdate(bytes)
            case 24: parseAsctime(bytes)
            default: parseRFC850(bytes)
            }
        }
    }

    /// `day-name "," SP day SP month SP year SP hour ":" minute ":" second SP "GMT"`.
    private static func parseIMFFixdate(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard index(of: bytes[0..<3], in: dayNames) != nil, bytes[3] == 0x2C, bytes[4] == 0x20,
            let day = number(bytes[5..<7]), bytes[7] == 0x20,
            let month = index(of: bytes[8..<11], in: monthNames), bytes[11] == 0x20,
            let year = number(bytes[12..<16]), bytes[16] == 0x20,
            let time = timeOfDay(bytes[17..<25]), bytes[25...].elementsEqual(" GMT".utf8)
        else { return nil }
        return seconds(year: year, month: month + 1, day: day, secondOfDay: time)
    }

    /// `day-name-l "," SP day "-" month "-" 2DIGIT SP hour ":" minute ":" second SP "GMT"`.
    private static func parseRFC850(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let comma = bytes.firstIndex(of: 0x2C), index(of: bytes[..<comma], in: longDayNames) != nil,
            bytes.count - comma == 24
        else { return nil }
        let rest = bytes[(comma + 1)...]
        let start = rest.startIndex
        guard rest[start] == 0x20, let day = number(rest[(start + 1)..<(start + 3)]), rest[start + 3] == 0x2D,
            let month = index(of: rest[(start + 4)..<(start + 7)], in: monthNames), rest[start + 7] == 0x2D,
            let shortYear = number(rest[(start + 8)..<(start + 10)]), rest[start + 10] == 0x20,
            let time = timeOfDay(rest[(start + 11)..<(start + 19)]), rest[(start + 19)...].elementsEqual(" GMT".utf8)
        else { return nil }
        let year = shortYear < 70 ? 2000 + shortYear : 1900 + shortYear
        return seconds(year: year, month: month + 1, day: day, secondOfDay: time)
    }

    /// `day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP hour ":" minute ":" second SP year`.
    private static func parseAsctime(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let dayDigits = bytes[8] == 0x20 ? bytes[9..<10] : bytes[8..<10]
        guard index(of: bytes[0..<3], in: dayNames) != nil, bytes[3] == 0x20,
            let month = index(of: bytes[4..<7], in: monthNames), bytes[7] == 0x20,
            let day = number(dayDigits), bytes[10] == 0x20,
            let time = timeOfDay(bytes[11..<19]), bytes[19] == 0x20,
            let year = number(bytes[20..<24])
        else { return nil }
        return seconds(year: year, month: month + 1, day: day, secondOfDay: time)
    }

    /// `hour ":" minute ":" second` as seconds since midnight; a leap second (60) is allowed.
    private static func timeOfDay(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        let start = bytes.startIndex
        guard let hour = number(bytes[start..<(start + 2)]), bytes[start + 2] == 0x3A,
            let minute = number(bytes[(start + 3)..<(start + 5)]), bytes[start + 5] == 0x3A,
            let second = number(bytes[(start + 6)..<(start + 8)]),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    private static func seconds(year: Int, month: Int, day: Int, secondOfDay: Int) -> Int64? {
        guard day >= 1, day <= daysInMonth(month, year: year) else { return nil }
        return days(fromCivil: year, month: month, day: day) * 86_400 + Int64(secondOfDay)
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func days(fromCivil year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, by: 400)
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    private static func floorDivide(_ value: Int64, by divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor < 0) ? quotient - 1 : quotient
    }

    /// The decimal value of a run of ASCII digits, or nil if any byte is not a digit.
    private static func number(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var value = 0
        for byte in bytes {
            guard let digit = HTTPSyntax.digitValue(byte) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// The position of `bytes` in `names` (compared case-sensitively, as RFC 9110 §5.6.7 requires), or nil.
    private static func index(of bytes: Slice<UnsafeBufferPointer<UInt8>>, in names: [String]) -> Int? {
        names.firstIndex { $0.utf8.elementsEqual(bytes) }
    }

    private static func appendDigits(_ value: Int, count: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            bytes.append(0x30 + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
