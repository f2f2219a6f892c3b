import Testing

/// Concurrent misses for one key cause one origin fetch; the others wait for it and get the stored response, or
/// go to the origin themselves when it turns out not storable (issue 3, "Store").
@Suite("Cache coalescing")
struct CacheCoalescingTests {
    @Test("50 concurrent requests for one slow cacheable URL: one origin fetch, 50 identical bodies")
    func fiftyBecomeOne() async throws {
        let origin = try OriginServer { request in
            var response = OriginResponse.ok("the one body, seq \(request.sequence)", cacheControl: "max-age=60")
            response.delay = .milliseconds(500)
            return response
        }
        let larder = try await Daemon.start()
        let url = origin.url("/slow")
        let results = try await withThrowingTaskGroup(of: CurlResult.self) { group in
            for _ in 0..<50 {
                group.addTask { try await Curl.get(url, via: larder) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(origin.requests.count == 1)
        #expect(results.count == 50)
        for result in results {
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.status == 200)
            #expect(result.bodyText == "the one body, seq 1")
            #expect(result.originSequence == 1)
        }
        let statuses = results.map { $0.xCache ?? "-" }
        #expect(statuses.filter { $0 == "MISS" }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0 == "HIT" }.count == 49, "\(statuses)")
        let collapsed = results.filter { $0.cacheStatus?.has("collapsed") == true }
        // Every request that arrived while the fetch ran waited for it (curl may start a few late, after it).
        #expect(collapsed.count >= 1)
        let stats = try await CacheStatsSnapshot.fetch(from: larder)
        #expect(stats.count("miss") == 1)
        #expect(stats.count("hit") == 49)
    }

    @Test("when the first response turns out not storable, the waiting requests go to the origin themselves")
    func notStorableReleasesWaiters() async throws {
        let origin = try OriginServer { request in
            var response = OriginResponse.ok("private seq \(request.sequence)", cacheControl: "no-store")
            response.delay = .milliseconds(300)
            return response
        }
        let larder = try await Daemon.start(config: #"{"cache": {"coalesceWait": "120s"}}"#)
        let url = origin.url("/uncacheable")
        let clock = ContinuousClock()
        let started = clock.now
        let results = try await withThrowingTaskGroup(of: CurlResult.self) { group in
            for _ in 0..<10 {
                group.addTask { try await Curl.get(url, via: larder) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Released as soon as the leader's head said no-store, not after coalesceWait (a bound far from
        // both, so a loaded machine cannot blur the two).
        #expect(clock.now - started < .seconds(60))
        #expect(origin.requests.count == 10)
        let sequences = Set(results.compactMap(\.originSequence))
        #expect(sequences == Set(1...10))
        for result in results {
            #expect(result.status == 200)
            #expect(result.bodyText == "private seq \(result.originSequence ?? 0)")
            #expect(result.xCache == "MISS")
            #expect(result.cacheStatus?["detail"] == "no-store")
        }
    }

    @Test("a waiter whose leader takes longer than coalesceWait goes to the origin itself")
    func waitIsBounded() async throws {
        // The first answer is held back until the waiter is done, however long that takes.
        let answerFirst = Latch()
        defer { answerFirst.fire() }
        let origin = try OriginServer { request in
            if request.sequence == 1 { answerFirst.wait(timeout: .seconds(30)) }
            return .ok("seq \(request.sequence)", cacheControl: "max-age=60")
        }
        let larder = try await Daemon.start(config: #"{"cache": {"coalesceWait": "300ms"}}"#)
        let url = origin.url("/bounded")
        async let slow = Curl.get(url, via: larder)
        try await Poll.until("the first request to reach the origin") { origin.requests.count == 1 }
        let waiter = try await Curl.get(url, via: larder)
        #expect(waiter.status == 200)
        #expect(waiter.bodyText == "seq 2")
        #expect(waiter.cacheStatus?.has("collapsed") == true)
        answerFirst.fire()
        let leader = try await slow
        #expect(leader.bodyText == "seq 1")
        #expect(origin.requests.count == 2)
    }
}
