import Foundation
import HTTPServer
import Kafka

/// The console's pages as HTML; every value read from Kafka or the stores is escaped.
enum ConsolePage {
    /// The overview of `state` at `now`: the charts of the last hour, the workers with their lag by partition, the
    /// flows, outcomes and dead letters of the window (each letter with a replay form carrying `token`), the audit.
    static func overview(_ state: ConsoleState, at now: Date, grace: Duration, refresh: Int, token: String) -> String {
        let view = state.view
        let inFlight = view.flows.filter(\.isInFlight)
        let finished = view.flows.filter { !$0.isInFlight }.prefix(20)
        let hourAgo = now.addingTimeInterval(-3600)
        let body = """
            <p>Each partition is read in a bounded window: \(HTML.escape(state.window)). \(freshness(state, now: now, refresh: refresh))</p>
            \(state.problems.sorted { $0.key < $1.key }.map { "<p class=\"problem\">cannot read \(HTML.escape($0.key)): \(HTML.escape($0.value))</p>" }.joined())
            <h2>The last hour</h2>
            \(SVGChart.lines("Messages per minute by topic, since \(time(state.startedAt))",
                             state.history.throughput().map { SVGChart.Series(name: $0.key, values: $0.value) }.filter { !$0.values.isEmpty },
                             from: max(hourAgo, state.startedAt), to: now, unit: "messages a minute", empty: "not sampled yet"))
            \(SVGChart.lines("Outcomes per minute by type and reason, in the window", view.outcomesPerMinute.map {
                SVGChart.Series(name: $0.key, values: $0.value.mapValues(Double.init))
            }, from: hourAgo, to: now, unit: "outcomes a minute", empty: "no outcomes in the window"))
            \(SVGChart.lines("Consumer lag by worker, since \(time(state.startedAt))",
                             state.history.lags().map { SVGChart.Series(name: $0.key, values: $0.value) },
                             from: max(hourAgo, state.startedAt), to: now, unit: "messages", empty: "not sampled yet"))
            <h2>Workers (consumer groups): members and lag</h2>
            \(workers(state))
            <h2>Lag by partition (messages not yet committed)</h2>
            \(partitionLags(state.groups))
            <h2>Registrations and email changes in flight (\(inFlight.count), stuck after \(Int(grace.timeInterval)) s)</h2>
            \(flows(Array(inFlight.prefix(100)), now: now, grace: grace))
            <h2>Recently finished</h2>
            \(flows(Array(finished), now: now, grace: nil))
            <h2>Outcomes by reason</h2>
            \(HTML.table(["type", "reason", "last 15 min", "in the window"], view.outcomes.map {
                [HTML.escape($0.type), HTML.escape($0.reason), "\($0.recent)", "\($0.total)"]
            }, empty: "no outcomes in the window"))
            <h2>Dead letters (\(view.deadLetters.count) in the window)</h2>
            \(deadLetterDepths(state))
            \(HTML.table(["letter", "reason", "from", "headers", "key", "value", ""], view.deadLetters.prefix(100).map { letter in
                letterCells(letter) + [replayForm(letter, token: token, confirm: false)]
            }, empty: "no dead letters in the window"))
            \(audit(state, now: now))
            """
        return HTML.page("Registrar console", refresh: refresh, body)
    }

    /// An HTML answer with `status`.
    static func answer(_ status: Int, _ page: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(page.utf8))
    }

    /// The confirmation step of a replay: the letter once more and the form that replays it.
    static func confirmation(_ letter: KafkaMessage, token: String) -> String {
        HTML.page("Replay this dead letter?", """
            \(HTML.table(["letter", "reason", "from", "headers", "key", "value"], [letterCells(letter)], empty: ""))
            <p>It goes back to \(HTML.escape(DeadLetterCommand.inputTopic(ofDeadLetterTopic: letter.topic) ?? "?")) as it is.</p>
            \(replayForm(letter, token: token, confirm: true)) <a href="/">Cancel</a>
            """)
    }

    /// What a replay did.
    static func replayed(_ lines: [String]) -> String {
        HTML.page("Replayed", lines.map { "<p>\(HTML.escape($0))</p>" }.joined() + "<p><a href=\"/\">Back to the console</a></p>")
    }

    /// A refused or failed request, said in `message`; `linked` to the console (not when the console was refused).
    static func problem(_ message: String, linked: Bool = true) -> String {
        HTML.page("Not done", "<p class=\"problem\">\(HTML.escape(message))</p>" + (linked ? "<p><a href=\"/\">Back to the console</a></p>" : ""))
    }

    /// A letter's `topic:partition:offset`, as the replay form names it.
    static func position(of letter: KafkaMessage) -> String { "\(letter.topic):\(letter.partition):\(letter.offset)" }

    static func time(_ date: Date) -> String { date.formatted(.iso8601) }
}
