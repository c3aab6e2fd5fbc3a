import Synchronization

/// How long each record in flight (a saga) has gone without progress, measured on a monotonic clock, so that a step
/// of the wall clock (an NTP correction, a VM resumed) neither ages nor rejuvenates anything. A record progresses when
/// its marker changes (its version, which every transition rewrites), or when its group (its stage) is told it did
/// (`progressed(_:)`: a worker at that step is alive and waiting for its store). A record first seen counts from then:
/// a restarted worker begins every count again. Time the watch did not look (its sweep failing while its store is
/// down, the process frozen) counts at most `maximumGap` between two looks: the records' silence then is the watcher's
/// own blindness, and their replies may be waiting to be read; time it is told it cannot see (`blinded()`) counts
/// nothing. A record's count may be begun again once
/// (`secondChance(_:)`), when what it waits for was asked for again.
public final class ProgressWatch: Sendable {
    /// The monotonic time, as the time since an arbitrary origin.
    public typealias Uptime = @Sendable () -> Duration
    /// A record as the watch sees it: its id, its current marker and its group.
    public typealias Mark = (id: String, marker: String, group: String)

    private struct Sighting {
        var marker: String
        var group: String
        var since: Duration
        /// Whether its count was begun again (`secondChance(_:)`) since its marker last changed.
        var hadSecondChance = false
    }

    private struct State {
        var sightings: [String: Sighting] = [:]
        var lastLook: Duration?
        /// Whether the watcher was blind since its last look (`blinded()`).
        var blind = false
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

    /// The watcher cannot see now (its worker does not hear the broker its records' replies come through): the time
    /// from its last look to its next counts for no record.
    public func blinded() {
        state.withLock { $0.blind = true }
    }

    /// Begins the count of `id` (a record `stalled(_:for:)` just gave) again from now, once since its marker last changed:
    /// true the first time, false after (it has had its chance).
    public func secondChance(_ id: String) -> Bool {
        let now = uptime()
        return state.withLock { state in
            guard var sighting = state.sightings[id], !sighting.hadSecondChance else { return false }
            sighting.since = now
            sighting.hadSecondChance = true
            state.sightings[id] = sighting
            return true
        }
    }

    /// The ids among `records` (each an id, its current marker and its group) that have made no progress for at least
    /// `limit`. Records not given are forgotten (they reached an outcome).
    public func stalled(_ records: [Mark], for limit: Duration) -> Set<String> {
        let now = uptime()
        return state.withLock { state in
            let gap = state.lastLook.map { now - $0 } ?? .zero
            let uncounted = state.blind ? gap : gap > maximumGap ? gap - maximumGap : .zero
            state.lastLook = now
            state.blind = false
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
