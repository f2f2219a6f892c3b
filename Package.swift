// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "larder",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "larder", targets: ["larder"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
    ],
    targets: [
        // Pure: HTTP/1.1 heads, incremental parser, serializer, chunked coding, dates.
        .target(name: "HTTPWire", swiftSettings: strict),
        // Pure: config model, routes, cache keys, RFC 9111 decisions.
        .target(name: "CachePolicy", dependencies: ["HTTPWire"], swiftSettings: strict),
        // libcurl, with typed shims for its variadic functions.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // libdeflate's crc32, for body checksums: the same CRC-32 as zlib's (stored checksums stay valid), computed
        // with PCLMULQDQ where the CPU has it, where zlib's table-driven one was an eighth of the CPU of a large miss.
        .systemLibrary(name: "CDeflate", path: "Sources/CDeflate", providers: [.apt(["libdeflate-dev"])]),
        // The daemon's allocator: linking it replaces malloc for the whole process, Swift's runtime and libcurl
        // included. On the miss path glibc's malloc cost 8-10 µs a request (cross-thread frees, consolidation of
        // the 1-64 KiB blocks that libcurl, SQLite and body buffers use); see issue 7's notes.
        .systemLibrary(name: "CMimalloc", path: "Sources/CMimalloc", providers: [.apt(["libmimalloc-dev"])]),
        // Linux calls Glibc leaves out: epoll, eventfd, the CPU affinity mask.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        // The event loop a thread runs: an epoll set, a task inbox, timers. The proxy's lanes are event loops.
        .target(name: "Reactor", dependencies: ["CLinux"], swiftSettings: strict),
        .target(
            name: "CacheStore",
            dependencies: [
                "HTTPWire", "CachePolicy", "CDeflate",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own C API, which GRDB wraps, for binding the hottest statement without boxing each value.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The offline queue: unsafe requests kept in STATE_DIR and replayed in order.
        .target(
            name: "ReplayQueue",
            dependencies: [
                "HTTPWire", "Upstream",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "Upstream",
            dependencies: ["CCurl", "HTTPWire", "Reactor", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .target(
            name: "Proxy",
            dependencies: [
                "HTTPWire", "CachePolicy", "CacheStore", "ReplayQueue", "Upstream", "Reactor", "CLinux",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "larder",
            dependencies: [
                "Proxy", "CachePolicy", "CacheStore", "ReplayQueue", "Upstream", "CCurl", "CMimalloc",
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "HTTPWireTests", dependencies: ["HTTPWire"], swiftSettings: strict),
        .testTarget(name: "CachePolicyTests", dependencies: ["CachePolicy"], swiftSettings: strict),
        .testTarget(name: "ReactorTests", dependencies: ["Reactor"], swiftSettings: strict),
        .testTarget(name: "UpstreamTests", dependencies: ["Upstream", "HTTPWire", "CCurl"], swiftSettings: strict),
        // What the unit-test targets share: temporary directories, a log recorder.
        .target(
            name: "TestSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "CacheStoreTests",
            // GRDB: to build an index as an earlier version wrote it, and to check its totals against its rows.
            dependencies: ["CacheStore", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict
        ),
        .testTarget(name: "ReplayQueueTests", dependencies: ["ReplayQueue", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["HTTPWire", "larder"],
            swiftSettings: strict
        ),
    ]
)
