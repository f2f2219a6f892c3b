import HTTPWire

/// The age calculation of RFC 9111 §4.2.3, step by step, so each intermediate value can be checked.
public struct AgeCalculation: Sendable, Equatable {
    /// `age_value`: the response's own `Age` (first valid field line), else 0 (RFC 9111 §5.1).
    public var ageValue: Int64
    /// `date_value`: the response's `Date`, or `response_time` when absent or invalid (RFC 9110 §6.6.1).
    public var dateValue: Int64
    /// `apparent_age = max(0, response_time - date_value)` (RFC 9111 §4.2.3).
    public var apparentAge: Int64
    /// `response_delay = response_time - request_time` (RFC 9111 §4.2.3).
    public var responseDelay: Int64
    /// `corrected_age_value = age_value + response_delay` (RFC 9111 §4.2.3).
    public var correctedAgeValue: Int64
    /// `corrected_initial_age = max(apparent_age, corrected_age_value)` (RFC 9111 §4.2.3).
    public var correctedInitialAge: Int64
    /// `resident_time = now - response_time` (RFC 9111 §4.2.3).
    public var residentTime: Int64
    /// `current_age = corrected_initial_age + resident_time` (RFC 9111 §4.2.3), floored at 0 in case `now`
    /// went back before `response_time`.
    public var currentAge: Int64

    /// Runs RFC 9111 §4.2.3 on a stored response.
    public init(response: ResponseHead, times: StoredTimes, now: Int64) {
        ageValue =
            response.headers.fields.lazy.filter { $0.name.equalsIgnoringASCIICase("Age") }
            .compactMap { DeltaSeconds.parse($0.value) }.first ?? 0
        dateValue = RFC9111.dateValue(of: response) ?? times.responseTime
        apparentAge = max(0, times.responseTime - dateValue)
        responseDelay = times.responseTime - times.requestTime
        correctedAgeValue = ageValue + responseDelay
        correctedInitialAge = max(apparentAge, correctedAgeValue)
        residentTime = now - times.responseTime
        currentAge = max(0, correctedInitialAge + residentTime)
    }
}
