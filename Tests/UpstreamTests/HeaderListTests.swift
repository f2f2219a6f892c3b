import CCurl
import HTTPWire
import Testing

@testable import Upstream

/// The request fields handed to libcurl as `CURLOPT_HTTPHEADER`, built in one block instead of with
/// `curl_slist_append`.
@Suite("Upstream header list")
struct HeaderListTests {
    /// The list's lines, read the way libcurl reads them: node by node until `next` is nil.
    private func lines(of list: UnsafeMutablePointer<curl_slist>?) -> [String] {
        var lines: [String] = []
        var node = list
        while let current = node {
            lines.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return lines
    }

    @Test("every field in order, an empty value as `Name;`, then the removals of libcurl's own Accept and Expect")
    func fieldsAndRemovals() {
        let headers: HTTPHeaders = [
            "Host": "example.com", "Via": "1.1 larder", "X-Empty": "", "Content-Length": "3",
            "transfer-encoding": "chunked", "X-Spaced": "v a l u e",
        ]
        let list = EasyConfiguration.headerList(for: headers)
        defer { EasyConfiguration.freeHeaderList(list) }
        #expect(lines(of: list) == ["Via: 1.1 larder", "X-Empty;", "X-Spaced: v a l u e", "Accept:", "Expect:"])
    }

    @Test("a client's own Accept and Expect are sent instead of removed")
    func clientAcceptAndExpect() {
        let headers: HTTPHeaders = ["accept": "text/html", "Expect": "100-continue"]
        let list = EasyConfiguration.headerList(for: headers)
        defer { EasyConfiguration.freeHeaderList(list) }
        #expect(lines(of: list) == ["accept: text/html", "Expect: 100-continue"])
    }

    @Test("only fields libcurl writes itself: the removals alone")
    func onlyOwnedFields() {
        let list = EasyConfiguration.headerList(for: ["Host": "example.com"])
        defer { EasyConfiguration.freeHeaderList(list) }
        #expect(lines(of: list) == ["Accept:", "Expect:"])
    }
}
