/// What to do with a queued request after an attempt, each case with its reason.
package enum AttemptVerdict: Sendable, Equatable {
    /// The origin answered: record `status` and remove the request.
    case deliver(status: Int)
    /// The origin refused the credentials: hold this request and every later one to the origin.
    case hold(reason: String, status: Int)
    /// No answer: send again at `at` (milliseconds since 1970).
    case retry(at: Int64, error: String)
    /// Give up: keep the request in the dead-letter list.
    case deadLetter(reason: String, error: String?)
}
