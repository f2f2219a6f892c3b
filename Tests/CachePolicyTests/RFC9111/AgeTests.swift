import CachePolicy
import HTTPWire
import Testing

/// A worked example of RFC 9111 §4.2.3; times are offsets from `t0`, expected values in the RFC's order.
struct AgeCase: Sendable, CustomTestStringConvertible {
    var name: String
    var lines: [String]
    var requestTime: Int64
    var responseTime: Int64
    var now: Int64
    /// age_value, date_value (offset), apparent_age, response_delay, corrected_age_value,
    /// corrected_initial_age, resident_time, current_age.
    var expected: [Int64]

    var testDescription: String { name }
}

@Suite("RFC 9111 §4.2.3 calculating age")
struct AgeTests {
    static let worked: [AgeCase] = [
        AgeCase(
            name: "Age and delay dominate: 10 + 2, then 98 resident", lines: ["Date: \(date(-3))", "Age: 10"],
            requestTime: 0, responseTime: 2, now: 100, expected: [10, -3, 5, 2, 12, 12, 98, 110]),
        AgeCase(
            name: "apparent age dominates: Date 101 s before receipt", lines: ["Date: \(date(-100))", "Age: 5"],
            requestTime: 0, responseTime: 1, now: 1, expected: [5, -100, 101, 1, 6, 101, 0, 101]),
        AgeCase(
            name: "origin clock ahead: apparent age is floored at 0", lines: ["Date: \(date(50))"],
            requestTime: 0, responseTime: 2, now: 10, expected: [0, 50, 0, 2, 2, 2, 8, 10]),
        AgeCase(
            name: "no Date: date_value is the receive time", lines: [],
            requestTime: 0, responseTime: 4, now: 4, expected: [0, 4, 0, 4, 4, 4, 0, 4]),
        AgeCase(
            name: "invalid Date: date_value is the receive time", lines: ["Date: yesterday", "Age: 1"],
            requestTime: 0, responseTime: 4, now: 14, expected: [1, 4, 0, 4, 5, 5, 10, 15]),
        AgeCase(
            name: "invalid Age counts as 0", lines: ["Date: \(date(0))", "Age: soon"],
            requestTime: 0, responseTime: 0, now: 7, expected: [0, 0, 0, 0, 0, 0, 7, 7]),
        AgeCase(
            name: "negative Age is invalid", lines: ["Date: \(date(0))", "Age: -5"],
            requestTime: 0, responseTime: 0, now: 7, expected: [0, 0, 0, 0, 0, 0, 7, 7]),
        AgeCase(
            name: "the first valid Age line is used", lines: ["Date: \(date(0))", "Age: x", "Age: 7", "Age: 9"],
            requestTime: 0, responseTime: 0, now: 0, expected: [7, 0, 0, 0, 7, 7, 0, 7]),
        AgeCase(
            name: "an Age past 2^31 is 2^31", lines: ["Date: \(date(0))", "Age: 99999999999999999999"],
            requestTime: 0, responseTime: 0, now: 0,
            expected: [2_147_483_648, 0, 0, 0, 2_147_483_648, 2_147_483_648, 0, 2_147_483_648]),
        AgeCase(
            name: "a clock that went back gives age 0, not negative", lines: ["Date: \(date(0))"],
            requestTime: 0, responseTime: 0, now: -50, expected: [0, 0, 0, 0, 0, 0, -50, 0]),
    ]

    @Test("current_age is corrected_initial_age plus resident_time, step by step (§4.2.3)", arguments: worked)
    func workedExample(_ row: AgeCase) {
        let times = StoredTimes(requestTime: t0 + row.requestTime, responseTime: t0 + row.responseTime)
        let age = AgeCalculation(response: response(200, row.lines), times: times, now: t0 + row.now)
        let steps = [
            age.ageValue, age.dateValue - t0, age.apparentAge, age.responseDelay, age.correctedAgeValue,
            age.correctedInitialAge, age.residentTime, age.currentAge,
        ]
        #expect(steps == row.expected)
        #expect(RFC9111.currentAge(of: response(200, row.lines), times: times, now: t0 + row.now) == row.expected[7])
    }

    static let ageHeader: [(Int64, String)] = [
        (-5, "0"), (0, "0"), (42, "42"), (2_147_483_647, "2147483647"), (2_147_483_648, "2147483648"),
        (2_147_483_649, "2147483648"), (Int64.max, "2147483648"),
    ]

    @Test("the Age field is the current age in delta-seconds, at most 2^31 (§5.1, §1.2.2)", arguments: ageHeader)
    func ageHeaderValue(age: Int64, text: String) {
        #expect(RFC9111.ageHeaderValue(age) == text)
    }
}

@Suite("Stored response facts: parsed once, the same answers")
struct StoredResponseFactsTests {
    @Test("facts give RFC 9111 §4.2.3's current age at any later time", arguments: AgeTests.worked)
    func currentAge(_ row: AgeCase) {
        let times = StoredTimes(requestTime: t0 + row.requestTime, responseTime: t0 + row.responseTime)
        let head = response(200, row.lines)
        let facts = StoredResponseFacts(response: head, times: times, heuristicCap: 86_400)
        for later: Int64 in [0, 1, 59, 3_600] {
            let now = t0 + row.now + later
            #expect(facts.currentAge(now: now) == RFC9111.currentAge(of: head, times: times, now: now))
        }
    }

    @Test("facts read with another heuristic cap, or for other times, are not used: the view parses anew")
    func mismatchedFactsAreIgnored() {
        let head = response(200, ["Date: \(date(0))", "Last-Modified: \(date(-100_000))"])
        let times = StoredTimes(requestTime: t0, responseTime: t0)
        var view = StoredEntryView(response: head, times: times, requestHeaders: [:])
        view.facts = StoredResponseFacts(response: head, times: times, heuristicCap: 60)
        #expect(view.facts(cap: 60).lifetime.seconds == 60)
        // 10 % of 100,000 s, under a cap of a day.
        #expect(view.facts(cap: 86_400).lifetime.seconds == 10_000)
        view.facts = StoredResponseFacts(
            response: head, times: StoredTimes(requestTime: t0 - 500, responseTime: t0 - 500), heuristicCap: 60)
        #expect(view.currentAge(now: t0 + 10) == RFC9111.currentAge(of: head, times: times, now: t0 + 10))
    }
}
