import Synchronization

/// How long each record in flight (a saga) has gone without progress, measured on a monotonic clock, so that a step
/// of the wall clock (an NTP correction, a VM resumed) neither ages nor rejuvenates anything. A record progresses when
/// its marker changes (its version, which every transition rewrites), or when its group (its stage) is told it did
/// (`progressed(_:)`: a worker at that step is alive and waiting for its store). A record first seen counts from then:
/// a restarted worker begins every count again. Time the watch did not look (its sweep failing while its store is
/// down, the process frozen) counts at most `maximumGap` between two looks: the records' silence then is the watcher's
/// own blindness, and their replies may be waiting to be read; time it is told it cannot see (`canSee(_:)`) counts
/// nothing. A record's count may be begun again once (`giveSecondChance(to:)`), when what it waits for was asked for
/// again.
public final class ProgressWatch: Sendable {
    /// The monotonic time, as the time since an arbitrary origin.
    public typealias Uptime = @Sendable () -> Duration
    /// A record as the watch sees it: its id, its current marker and its group.
    public typealias Mark = (id: String, marker: String, group: String)

    private struct Sighting {
        var marker: String
        var group: String
        var since: Duration
        /// Whether its count was begun again (`giveSecondChance(to:)`) since its marker last changed.
        var hadSecondChance = false
    }

    private struct State {
        var sightings: [String: Sighting] = [:]
        var lastLook: Duration?
        /// Since when the watcher cannot see, while it cannot (`canSee(_:)`).
        var blindSince: Duration?
        /// How long it could not see since its last look, before `blindSince`.
        var blindness = Duration.zero
        /// When each group last progressed as a whole.
        var groups: [String: Duration] = [:]
    }

    private let uptime: Uptime
    private let maximumGap: Duration
    private let state = Mutex(State())

    /// A watch on `uptime` (by default the process's monotonic clock, `ContinuousClock`) that counts at most
    /// `maximumGap` between two looks.
    public init(uptime: @escaping Uptime = ProgressWatch.continuous, maximumGap: Duration = .seconds(30)) {
        self.uptime = uptime
        self.maximumGap = maximumGap
    }

    /// The monotonic time since this process first asked.
    public static let continuous: Uptime = {
        let origin = ContinuousClock.now
        return { ContinuousClock.now - origin }
    }()

    /// Every record of `group` progressed now.
    public func progressed(_ group: String) {
        let now = uptime()
        state.withLock { $0.groups[group] = now }
    }

    /// Whether the watcher can see now (its worker hears the broker its records' replies come through): the time it
    /// cannot counts for no record — from its last look on, since it learns it went blind only after the fact.
    public func canSee(_ seeing: Bool) {
        let now = uptime()
        state.withLock { state in
            if !seeing, state.blindSince == nil {
                state.blindSince = state.lastLook ?? now
            } else if seeing, let since = state.blindSince {
                state.blindness += now - since
                state.blindSince = nil
            }
        }
    }

    /// Whether the count of `id` was begun again (`giveSecondChance(to:)`) since its marker last changed.
    public func hadSecondChance(_ id: String) -> Bool {
        state.withLock { $0.sightings[id]?.hadSecondChance ?? false }
    }

    /// Begins the count of each of `ids` (records `stalled(_:for:)` gave, whose step was asked for again) from now, once
    /// since its marker last changed.
    public func giveSecondChance(to ids: [String]) {
        let now = uptime()
        state.withLock { state in
            for id in ids {
                state.sightings[id]?.since = now
                state.sightings[id]?.hadSecondChance = true
            }
        }
    }

    /// The ids among `records` (each an id, its current marker and its group) that have made no progress for at least
    /// `limit`. Records not given are forgotten (they reached an outcome).
    public func stalled(_ records: [Mark], for limit: Duration) -> Set<String> {
        let now = uptime()
        return state.withLock { state in
            let gap = state.lastLook.map { now - $0 } ?? .zero
            let blindness = state.blindness + (state.blindSince.map { now - $0 } ?? .zero)
            let uncounted = min(gap, max(blindness, gap > maximumGap ? gap - maximumGap : .zero))
            state.lastLook = now
            state.blindness = .zero
            if state.blindSince != nil { state.blindSince = now }
            var current: [String: Sighting] = [:]
            var stalled: Set<String> = []
            for (id, marker, group) in records {
                var sighting = state.sightings[id].flatMap { $0.marker == marker && $0.group == group ? $0 : nil }
                    ?? Sighting(marker: marker, group: group, since: now)
                if sighting.since < now { sighting.since += uncounted }
                if let progressed = state.groups[group], progressed > sighting.since { sighting.since = progressed }
                current[id] = sighting
                if now - sighting.since >= limit { stalled.insert(id) }
            }
            state.sightings = current
            return stalled
        }
    }
}
