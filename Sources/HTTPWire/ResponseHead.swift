/// A status line and its header fields; the body travels separately.
public struct ResponseHead: Sendable, Equatable {
    public var version: HTTPVersion
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders

    public init(version: HTTPVersion = .http1_1, status: Int, reason: String? = nil, headers: HTTPHeaders = [:]) {
        self.version = version
        self.status = status
        self.reason = reason ?? ResponseHead.standardReason(for: status)
        self.headers = headers
    }

    /// Responses to HEAD, and 1xx, 204 and 304 responses, never have a body (RFC 9112 §6.3).
    public static func hasBody(status: Int, requestMethod: String) -> Bool {
        if requestMethod == "HEAD" { return false }
        if (100..<200).contains(status) || status == 204 || status == 304 { return false }
        return true
    }

    public static func standardReason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 417: "Expectation Failed"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 508: "Loop Detected"
        default: ""
        }
    }
}
