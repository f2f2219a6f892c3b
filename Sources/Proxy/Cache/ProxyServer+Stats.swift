import CachePolicy

extension ProxyServer {
    /// `/_larder/stats`: what is stored, and how requests were answered, overall and per route.
    func statsJSON() -> String {
        let (total, routes) = counters.snapshot()
        let stored = store?.stats()
        func counts(_ counts: CacheCounters.Counts) -> String {
            let statuses = CacheStatus.allCases.map { "\(JSONText.quote($0.rawValue.lowercased())):\(counts.byStatus[$0.rawValue, default: 0])" }
            return "{" + statuses.joined(separator: ",")
                + ",\"hitRatio\":\((counts.hitRatio * 10_000).rounded() / 10_000)"
                + ",\"bytesFromCache\":\(counts.bytesFromCache),\"bytesFromUpstream\":\(counts.bytesFromUpstream)"
                + ",\"coalescedWaits\":\(counts.coalescedWaits)}"
        }
        var parts: [String] = []
        if let stored {
            parts.append("\"entries\":\(stored.diskEntries)")
            parts.append("\"memory\":{\"entries\":\(stored.memoryEntries),\"bytes\":\(stored.memoryBytes)}")
            parts.append("\"disk\":{\"entries\":\(stored.diskEntries),\"bytes\":\(stored.diskBytes)}")
            parts.append("\"evictions\":\(stored.evictions),\"writeFailures\":\(stored.writeFailures)")
        } else {
            parts.append("\"entries\":0,\"cacheDisabled\":true")
        }
        parts.append("\"requests\":\(counts(total))")
        let perRoute = routes.keys.sorted().map { "\(JSONText.quote($0)):\(counts(routes[$0]!))" }  // keys from the same dictionary
        parts.append("\"routes\":{\(perRoute.joined(separator: ","))}")
        parts.append("\"connections\":\(openConnectionCount)")
        return "{" + parts.joined(separator: ",") + "}\n"
    }
}

extension ProxyServer {
    /// `/_larder/entries`: stored responses with size, age and remaining freshness, for `larder ls`.
    func entriesJSON(prefix: String?, limit: Int) -> String {
        guard let store else { return "[]\n" }
        let now = self.now()
        let cap = config.cache.heuristicMaxAgeSeconds
        let items = store.entries(urlPrefix: prefix, limit: limit).map { entry -> String in
            let age = RFC9111.currentAge(of: entry.head, times: entry.times, now: now)
            let lifetime = RFC9111.freshnessLifetime(of: entry.head, responseTime: entry.responseTime, heuristicCap: cap).seconds
            return "{\"url\":\(JSONText.quote(entry.url)),\"status\":\(entry.head.status),\"size\":\(entry.bodySize),"
                + "\"age\":\(age),\"ttl\":\(lifetime - age),\"route\":\(JSONText.quote(entry.route)),"
                + "\"variant\":\(JSONText.quote(entry.variant))}"
        }
        return "[" + items.joined(separator: ",") + "]\n"
    }
}
