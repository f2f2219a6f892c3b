import HTTPWire
import Testing

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Test("a built head with every field added is byte for byte the serialized head")
func builderMatchesSerialized() {
    let head = ResponseHead(
        version: .http1_0, status: 404, reason: "Gone Fishing",
        headers: ["Content-Type": "text/plain", "Set-Cookie": "a=1", "set-cookie": "b=2", "X-Empty": ""])
    var builder = ResponseHeadBuilder(statusLineOf: head, extraCapacity: 0)
    builder.add(fieldsOf: head.headers, skipping: { _ in false })
    #expect(builder.finished() == head.serialized())
}

@Test("skipped fields are left out wherever they are, every repeat of them; the rest keep their order")
func builderSkips() {
    let head = ResponseHead(
        status: 200, headers: ["Age": "3", "X-One": "1", "age": "4", "X-Two": "2", "AGE": "5", "X-Three": "3"])
    var builder = ResponseHeadBuilder(statusLineOf: head, extraCapacity: 16)
    builder.add(fieldsOf: head.headers, skipping: { $0.equalsIgnoringASCIICase("age") })
    builder.add("Age", 12)
    builder.add("X-Cache", "HIT")
    #expect(
        text(builder.finished())
            == "HTTP/1.1 200 OK\r\nX-One: 1\r\nX-Two: 2\r\nX-Three: 3\r\nAge: 12\r\nX-Cache: HIT\r\n\r\n")
}

@Test("CR, LF and NUL in added names, values and the reason become spaces, so no field or response can be injected")
func builderSanitizes() {
    let head = ResponseHead(status: 200, reason: "OK\r\nX-Evil: 1")
    var builder = ResponseHeadBuilder(statusLineOf: head, extraCapacity: 0)
    builder.add("X-A\r\nX-Injected", "v\u{0}al\nue")
    builder.add("X-Number", -7)
    #expect(
        text(builder.finished())
            == "HTTP/1.1 200 OK  X-Evil: 1\r\nX-A  X-Injected: v al ue\r\nX-Number: -7\r\n\r\n")
}

@Test("a head started from a prefix written once is byte for byte the head built in one go, every time it is built")
func builderFromPrefix() {
    let head = ResponseHead(
        status: 203, reason: "Non-Authoritative",
        headers: ["Age": "3", "X-One": "1", "Content-Length": "9", "X-Two": "2"])
    let skip = { (name: String) in name.equalsIgnoringASCIICase("age") || name.equalsIgnoringASCIICase("content-length") }
    var direct = ResponseHeadBuilder(statusLineOf: head, extraCapacity: 0)
    direct.add(fieldsOf: head.headers, skipping: skip)
    direct.add("Age", 12)
    let expected = direct.finished()
    #expect(text(expected) == "HTTP/1.1 203 Non-Authoritative\r\nX-One: 1\r\nX-Two: 2\r\nAge: 12\r\n\r\n")
    let prefix = ResponseHeadBuilder.prefix(of: head, skipping: skip)
    for _ in 0..<2 {
        var fromPrefix = ResponseHeadBuilder(prefix: prefix, extraCapacity: 8)
        fromPrefix.add("Age", 12)
        #expect(fromPrefix.finished() == expected)
    }
}
