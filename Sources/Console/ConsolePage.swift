import Foundation
import Kafka

/// The console's pages as HTML; every value read from Kafka or the stores is escaped.
enum ConsolePage {
    /// The overview: workers, flows, outcomes, dead letters (each with a replay form carrying `token`) and findings.
    static func overview(_ view: ConsoleView, grace: Duration, refresh: Int, token: String) -> String {
        let inFlight = view.flows.filter(\.isInFlight)
        let finished = view.flows.filter { !$0.isInFlight }.prefix(20)
        let body = """
            <p>Read \(HTML.escape(time(view.readAt))) from Kafka and the stores; refreshed every \(refresh) s.</p>
            \(view.problems.map { "<p class=\"problem\">cannot read \(HTML.escape($0))</p>" }.joined())
            <h2>Workers (consumer groups): members and lag</h2>
            \(workers(view))
            <h2>Registrations and email changes in flight (\(inFlight.count), stuck after \(Int(grace.timeInterval)) s)</h2>
            \(flows(inFlight, now: view.readAt, grace: grace))
            <h2>Recently finished</h2>
            \(flows(Array(finished), now: view.readAt, grace: nil))
            <h2>Outcomes by reason</h2>
            \(HTML.table(["type", "reason", "last 15 min", "on the topics"], view.outcomes.map {
                [HTML.escape($0.type), HTML.escape($0.reason), "\($0.recent)", "\($0.total)"]
            }, empty: "no outcomes on the topics"))
            <h2>Dead letters (\(view.deadLetters.count))</h2>
            \(HTML.table(["letter", "reason", "from", "headers", "key", "value", ""], view.deadLetters.prefix(100).map { letter in
                letterCells(letter) + [replayForm(letter, token: token, confirm: false)]
            }, empty: "no dead letters"))
            <h2>Audit findings (\(view.findings.count))</h2>
            \(HTML.table(["kind", "subject", "detail"], view.findings.map {
                [HTML.escape($0.kind.rawValue), HTML.escape($0.subject), HTML.escape($0.detail)]
            }, empty: "no half-registered users"))
            """
        return HTML.page("Registrar console", refresh: refresh, body)
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

    /// A refused or failed request, said in `message`.
    static func problem(_ message: String) -> String {
        HTML.page("Not done", "<p class=\"problem\">\(HTML.escape(message))</p><p><a href=\"/\">Back to the console</a></p>")
    }

    /// A letter's `topic:partition:offset`, as the replay form names it.
    static func position(of letter: KafkaMessage) -> String { "\(letter.topic):\(letter.partition):\(letter.offset)" }

    private static func workers(_ view: ConsoleView) -> String {
        HTML.table(["group", "state", "members alive", "lag (messages)", "partitions behind", "partitions never committed"],
                   view.groups.map { group in
            let behind = group.partitions.filter { $0.lag > 0 }.map { "\($0.topicPartition): \($0.lag)" }
            return [HTML.escape(group.group)] + members(view.members[group.group]) + [
                "\(group.total)", HTML.escape(behind.isEmpty ? "none" : behind.joined(separator: ", ")),
                "\(group.partitions.filter { $0.committed == nil }.count) of \(group.partitions.count)"]
        }, empty: "no consumer groups read")
    }

    /// A group's state and members, one a line with its host and partition count, or why they are not known.
    private static func members(_ description: Result<ConsumerGroupDescription, KafkaError>?) -> [String] {
        switch description {
        case .success(let group)?:
            let lines = group.members.map { "\($0.clientID) \($0.host): \($0.partitions.count) partitions" }
            return [HTML.escape(group.state), lines.isEmpty ? "none" : "<pre>\(HTML.escape(lines.joined(separator: "\n")))</pre>"]
        case .failure(let error)?: return ["?", "not described: \(HTML.escape(error.message))"]
        case nil: return ["?", "not described"]
        }
    }

    /// `flows` with their paths; with a `grace`, those started longer ago are marked stuck.
    private static func flows(_ flows: [ConsoleView.Flow], now: Date, grace: Duration?) -> String {
        HTML.table(["kind", "id", "started", "standing", "path"], flows.map { flow in
            let age = flow.started.map { now.timeIntervalSince($0) } ?? 0
            let stuck = grace.map { age > $0.timeInterval } ?? false
            return [HTML.escape(flow.kind), "<code>\(HTML.escape(flow.id))</code>", HTML.escape(flow.started.map(time) ?? "-"),
                    stuck ? "<span class=\"stuck\">stuck \(Int(age)) s</span>" : HTML.escape(flow.path.standing),
                    "<pre>\(HTML.escape(flow.path.lines.joined(separator: "\n")))</pre>"]
        }, empty: "none")
    }

    private static func letterCells(_ letter: KafkaMessage) -> [String] {
        let header = { DeadLetterCommand.text(letter, $0) ?? "?" }
        let headers = letter.headers.map { "\($0.key): \($0.value.map { String(decoding: $0, as: UTF8.self) } ?? "")" }
        let value = String(validating: letter.value, as: UTF8.self) ?? "base64: " + Data(letter.value).base64EncodedString()
        return ["<code>\(HTML.escape(position(of: letter)))</code><br>\(HTML.escape(letter.timestamp.map(time) ?? "-"))",
                HTML.escape(header("dlq.reason")), HTML.escape("\(header("dlq.topic"))@\(header("dlq.offset")) by \(header("dlq.worker"))"),
                "<pre>\(HTML.escape(headers.joined(separator: "\n")))</pre>", "<code>\(HTML.escape(letter.keyString ?? ""))</code>",
                "<pre>\(HTML.escape(String(value.prefix(500))))</pre>"]
    }

    private static func replayForm(_ letter: KafkaMessage, token: String, confirm: Bool) -> String {
        """
        <form method="post" action="/replay" data-letter="\(HTML.escape(position(of: letter)))">\
        <input type="hidden" name="token" value="\(HTML.escape(token))">\
        <input type="hidden" name="letter" value="\(HTML.escape(position(of: letter)))">\
        \(confirm ? "<input type=\"hidden\" name=\"confirm\" value=\"yes\"><button type=\"submit\">Replay it</button>"
                  : "<button type=\"submit\">Replay…</button>")</form>
        """
    }

    private static func time(_ date: Date) -> String { date.formatted(.iso8601) }
}
