/// Why an origin could not give a complete response, classified as RFC 9209 proxy error types.
public struct UpstreamError: Error, Sendable, Equatable {
    /// RFC 9209 §2.3 error types that libcurl failures map onto.
    public enum Kind: String, Sendable, Equatable {
        case dnsError = "dns_error"
        case dnsTimeout = "dns_timeout"
        case connectionRefused = "connection_refused"
        case connectionTimeout = "connection_timeout"
        case connectionTerminated = "connection_terminated"
        case destinationUnavailable = "destination_unavailable"
        case destinationIPProhibited = "destination_ip_prohibited"
        case responseTimeout = "http_response_timeout"
        case readTimeout = "connection_read_timeout"
        case tlsProtocolError = "tls_protocol_error"
        case tlsCertificateError = "tls_certificate_error"
        case protocolError = "http_protocol_error"
        case responseIncomplete = "http_response_incomplete"
        case headerSectionTooLarge = "http_response_header_section_size"
        case loopDetected = "proxy_loop_detected"
        case internalError = "proxy_internal_error"
    }

    public var kind: Kind
    /// libcurl's own words, for the `details` parameter and the log.
    public var details: String

    public init(_ kind: Kind, details: String) {
        self.kind = kind
        self.details = details
    }

    /// Whether the origin could not be reached at all (nothing was sent to it), which is what the
    /// offline queue and stale-if-error care about.
    public var isUnreachable: Bool {
        switch kind {
        case .dnsError, .dnsTimeout, .connectionRefused, .connectionTimeout, .destinationUnavailable: true
        default: false
        }
    }
}
