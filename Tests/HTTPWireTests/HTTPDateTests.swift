import HTTPWire
import Testing

@Test(
    "an instant is written as IMF-fixdate",
    arguments: [
        (Int64(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT"),
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_709_164_800, "Thu, 29 Feb 2024 00:00:00 GMT"),
        (4_133_980_799, "Fri, 31 Dec 2100 23:59:59 GMT"),
        (4_107_542_399, "Sun, 28 Feb 2100 23:59:59 GMT"),
        (-2_208_988_800, "Mon, 01 Jan 1900 00:00:00 GMT"),
        (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
        (Int64.max, "Fri, 31 Dec 9999 23:59:59 GMT"),
        (Int64.min, "Sat, 01 Jan 0000 00:00:00 GMT"),
    ])
func formatDate(seconds: Int64, text: String) {
    #expect(HTTPDate.format(secondsSince1970: seconds) == text)
}

@Test(
    "all three date forms are read",
    arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777),
        ("Sun Nov 06 08:49:37 1994", 784_111_777),
        ("Wed Nov 16 08:49:37 1994", 784_975_777),
        ("Thursday, 01-Jan-70 00:00:00 GMT", 0),
        ("Saturday, 01-Jan-00 00:00:00 GMT", 946_684_800),
        ("Wednesday, 31-Dec-69 23:59:59 GMT", 3_155_759_999),
        ("Tue, 29 Feb 2000 00:00:00 GMT", 951_782_400),
        ("Thu, 01 Jan 1970 00:00:60 GMT", 60),
    ])
func parseDate(text: String, seconds: Int64) {
    #expect(HTTPDate.parse(text) == seconds)
}

@Test(
    "a date that is malformed or impossible is nil",
    arguments: [
        "",
        "yesterday",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37 GMT ",
        " Sun, 06 Nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "sun, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 nov 1994 08:49:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 29 Feb 1900 00:00:00 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 06 Nov 1994 08-49-37 GMT",
        "Sun, 06 Nov +994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 UTC",
        "Funday, 06-Nov-94 08:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov  6 08:49:37 94",
        "Sun Nov 6 08:49:37 1994",
        "Sun Nov  6 08:49:37 1994 ",
        "Sun, 06 Nov 1994 08:49:37 GMT\u{0}",
    ])
func rejectDate(text: String) {
    #expect(HTTPDate.parse(text) == nil)
}

@Test("formatting then parsing gives back the same instant")
func dateRoundTrip() {
    var seconds: Int64 = -5_000_000_000
    while seconds < 10_000_000_000 {
        #expect(HTTPDate.parse(HTTPDate.format(secondsSince1970: seconds)) == seconds)
        seconds += 86_400 * 37 + 3_607
    }
    for edge: Int64 in [HTTPDate.parse("Sat, 01 Jan 0000 00:00:00 GMT") ?? 0, 253_402_300_799] {
        #expect(HTTPDate.parse(HTTPDate.format(secondsSince1970: edge)) == edge)
    }
}
