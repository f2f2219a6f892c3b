import HTTPWire
import Upstream

/// Everything that ends a request with an error answer from Larder itself, classified once by
/// whose fault it is: the client's (4xx), the origin's (502/504), or Larder's (5xx).
enum ProxyError: Error, Sendable, Equatable {
    case malformed(WireError)
    case clientForbidden(address: String)
    case connectPortForbidden(port: Int)
    case notAProxyRequest(path: String)
    case loopDetected(reason: String)
    case upstream(UpstreamError, url: String)
    case tooManyConnections
    case requestTimeout
    case onlyIfCachedMiss(key: String)
    case cacheOnlyMiss(key: String)
    case adminUnauthorized
    case internalError(String)

    var status: Int {
        switch self {
        case .malformed(let error): error.status
        case .clientForbidden, .connectPortForbidden: 403
        case .notAProxyRequest: 400
        case .loopDetected: 508
        case .upstream(let error, _):
            switch error.kind {
            case .connectionTimeout, .responseTimeout, .readTimeout, .dnsTimeout: 504
            case .destinationIPProhibited: 403
            case .loopDetected: 508
            default: 502
            }
        case .tooManyConnections: 503
        case .requestTimeout: 408
        case .onlyIfCachedMiss, .cacheOnlyMiss: 504
        case .adminUnauthorized: 401
        case .internalError: 500
        }
    }

    /// The RFC 9209 error type for `Proxy-Status`.
    var proxyStatusType: String {
        switch self {
        case .malformed, .notAProxyRequest, .requestTimeout: "http_request_error"
        case .clientForbidden, .connectPortForbidden, .adminUnauthorized: "http_request_denied"
        case .loopDetected: "proxy_loop_detected"
        case .upstream(let error, _): error.kind.rawValue
        case .tooManyConnections: "connection_limit_reached"
        case .onlyIfCachedMiss, .cacheOnlyMiss: "destination_unavailable"
        case .internalError: "proxy_internal_error"
        }
    }

    /// What a person reading the body needs to know, and what to do about it.
    var message: String {
        switch self {
        case .malformed(let error):
            error.message
        case .clientForbidden(let address):
            "Clients from \(address) may not use this proxy. Add the address range to \"allow\" in the Larder config."
        case .connectPortForbidden(let port):
            "CONNECT to port \(port) is not allowed. Allowed ports are listed in \"connectPorts\" in the Larder config."
        case .notAProxyRequest(let path):
            """
            \(path) is not a Larder endpoint. Larder is an HTTP proxy: send it absolute URLs, for example
              http_proxy=http://HOST:PORT curl http://example.com/
            or use its endpoints: /_larder/health, /_larder/stats, /_larder/metrics.
            """
        case .loopDetected(let reason):
            "The request would loop back through Larder (\(reason))."
        case .upstream(let error, let url):
            switch error.kind {
            case .dnsError: "The origin's host name could not be resolved (\(url)): \(error.details)"
            case .dnsTimeout: "Resolving the origin's host name timed out (\(url))."
            case .connectionRefused: "The origin refused the connection (\(url)): \(error.details)"
            case .connectionTimeout: "Connecting to the origin timed out (\(url)): \(error.details)"
            case .responseTimeout, .readTimeout: "The origin did not answer in time (\(url)): \(error.details)"
            case .tlsCertificateError: "The origin's TLS certificate could not be verified (\(url)): \(error.details)"
            case .tlsProtocolError: "The TLS handshake with the origin failed (\(url)): \(error.details)"
            case .destinationIPProhibited: "The destination address is not allowed (\(url)): \(error.details)"
            case .loopDetected: "The request would loop back through Larder (\(url))."
            default: "The origin sent an invalid or incomplete response (\(url)): \(error.details)"
            }
        case .tooManyConnections:
            "Larder is at its connection limit. Try again shortly, or raise limits.maxConnections."
        case .requestTimeout:
            "The request head did not arrive in time."
        case .onlyIfCachedMiss(let key):
            "Nothing stored answers this request (cache key \(key)), and the request or route allows only cached answers."
        case .cacheOnlyMiss(let key):
            "This route answers only from the cache (policy cache-only), and nothing is stored under the key \(key)."
        case .adminUnauthorized:
            "Larder's admin endpoints need the admin token: send Authorization: Bearer <admin.token from the config>."
        case .internalError(let details):
            "Larder failed to handle the request: \(details)"
        }
    }

    /// Whether the connection must close after this answer (the request's framing can't be trusted).
    var closesConnection: Bool {
        switch self {
        case .malformed, .requestTimeout, .tooManyConnections, .clientForbidden: true
        default: false
        }
    }

    /// The `Proxy-Status` value (RFC 9209 §2).
    func proxyStatus(name: String) -> String {
        var details = message
        if case .upstream(let error, _) = self { details = error.details }
        let escaped = details.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: " ")
        return "\(name); error=\(proxyStatusType); details=\"\(escaped)\""
    }

    /// A complete answer: plain text, or JSON when the client said it accepts JSON.
    func response(viaName: String, acceptsJSON: Bool) -> (head: ResponseHead, body: [UInt8]) {
        let body: [UInt8]
        var headers = HTTPHeaders()
        if acceptsJSON {
            body = Array("{\"status\":\(status),\"error\":\(JSONText.quote(proxyStatusType)),\"message\":\(JSONText.quote(message))}\n".utf8)
            headers.add("Content-Type", "application/json")
        } else {
            body = Array("\(status) \(ResponseHead.standardReason(for: status)): \(message)\n".utf8)
            headers.add("Content-Type", "text/plain; charset=utf-8")
        }
        headers.add("Content-Length", String(body.count))
        headers.add("Cache-Control", "no-store")
        headers.add("Proxy-Status", proxyStatus(name: viaName))
        return (ResponseHead(status: status, headers: headers), body)
    }
}

/// Minimal JSON string quoting for hand-built bodies.
enum JSONText {
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
