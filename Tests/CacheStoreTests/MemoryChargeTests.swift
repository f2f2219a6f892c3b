@testable import CacheStore
import HTTPWire
import Testing

/// The memory tier's charge is what keeps Larder's resident set within its budget, so it must not undercount the
/// heap an entry takes.
@Suite("Memory tier charge")
struct MemoryChargeTests {
    /// The benchmark's miss workload entry: nginx's head for a 1 KiB file, a 60-byte URL.
    static func missEntry(url: String = "http://127.0.0.1:18080/miss/miss-c50-larder-1--t1-123456") -> StoredEntry {
        let head = ResponseHead(
            status: 200, reason: "OK",
            headers: [
                "Server": "nginx/1.22.1", "Date": "Mon, 23 Nov 2026 04:42:32 GMT",
                "Content-Type": "application/octet-stream", "Content-Length": "1024",
                "Last-Modified": "Mon, 23 Nov 2026 04:41:52 GMT", "ETag": "\"6b03c410-400\"",
                "Cache-Control": "public, max-age=3600", "Accept-Ranges": "bytes",
            ])
        return StoredEntry(
            key: "GET " + url, variant: "", url: url, route: "default", head: head, requestTime: 1, responseTime: 1,
            bodySize: 1024)
    }

    static func charge(of entry: StoredEntry, body: [UInt8]?) -> Int {
        let tier = MemoryTier(maxBytes: 1 << 30)
        tier.replace(key: entry.key, with: [MemoryVariant(entry: entry, crc: 0, isInline: true, body: body)])
        return tier.counts().bytes
    }

    @Test("malloc's chunk sizes: an 8-byte header, 16-byte rounding, 32 bytes at least")
    func blocks() {
        #expect(HeapSize.block(1) == 32)
        #expect(HeapSize.block(24) == 32)
        #expect(HeapSize.block(25) == 48)
        #expect(HeapSize.block(1056) == 1072)
    }

    @Test("strings of up to 15 UTF-8 bytes are inline; longer ones take a block with a header and a NUL")
    func strings() {
        #expect(HeapSize.string("") == 0)
        #expect(HeapSize.string(String(repeating: "a", count: 15)) == 0)
        #expect(HeapSize.string(String(repeating: "a", count: 16)) == 64)
        #expect(HeapSize.string(String(repeating: "é", count: 8)) == 64)
    }

    @Test("a 1 KiB miss entry is charged at least the 2,268 bytes of heap measured for one in the tier")
    func missEntryCharge() {
        // Measured with 20,000 such entries held by a tier (resident set growth per entry); the flat estimate this
        // replaced charged 2,148, and the process outgrew its budget by the difference.
        let charge = Self.charge(of: Self.missEntry(), body: [UInt8](repeating: 7, count: 1024))
        #expect(charge >= 2_268)
        #expect(charge <= 2_600)
    }

    @Test("the charge follows the URL, the header values and the body's buffer")
    func chargeGrowsWithSizes() {
        let base = Self.missEntry()
        let short = Self.charge(of: base, body: nil)
        let longURL = Self.missEntry(url: "http://127.0.0.1:18080/" + String(repeating: "u", count: 1000))
        // Key and URL both carry the extra bytes (less what rounding to 16 took up before).
        let extra = longURL.url.utf8.count - base.url.utf8.count
        #expect(Self.charge(of: longURL, body: nil) >= short + 2 * (extra - 15))
        var bigHeader = base
        bigHeader.head.headers.add("Set-Cookie", String(repeating: "c", count: 4000))
        #expect(Self.charge(of: bigHeader, body: nil) >= short + 4000)
        #expect(Self.charge(of: base, body: [UInt8](repeating: 1, count: 10_000)) >= short + 10_000)
    }
}
