import Foundation
import Kafka

/// The overview's sections: every value read from Kafka or the stores goes through `HTML.escape`.
extension ConsolePage {
    /// When the page's data was read, and the audit's age.
    static func freshness(_ state: ConsoleState, now: Date, refresh: Int) -> String {
        let read = state.refreshedAt.map { "Read \(HTML.escape(time($0))) (\(Int(now.timeIntervalSince($0))) s ago)" } ?? "The first read is under way"
        let behind = state.unread.values.reduce(0, +)
        return "\(read); refreshed every \(refresh) s." + (behind > 0 ? " The reader is \(behind) messages behind the topics' ends." : "")
    }

    static func workers(_ state: ConsoleState) -> String {
        let table = HTML.table(["group", "state", "members alive", "lag (messages)", "partitions never committed"], state.groups.map { group in
            [HTML.escape(group.group)] + members(state.members[group.group]) + [
                "\(group.total)", "\(group.partitions.filter { $0.committed == nil }.count) of \(group.partitions.count)"]
        }, empty: "no consumer groups read yet")
        let note = state.membersProblem.map { "<p class=\"empty\">Members not described: \(HTML.escape($0)).</p>" } ?? ""
        return table + note
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

    /// Each group's lag on each partition of each topic it reads: a row per group and topic, a column per partition.
    static func partitionLags(_ groups: [ConsumerGroupLag]) -> String {
        let width = groups.flatMap { $0.partitions.map { Int($0.topicPartition.partition) + 1 } }.max() ?? 0
        let rows = groups.flatMap { group in
            Dictionary(grouping: group.partitions, by: \.topicPartition.topic).sorted { $0.key < $1.key }.map { topic, partitions in
                let byIndex = Dictionary(uniqueKeysWithValues: partitions.map { (Int($0.topicPartition.partition), $0) })
                return [HTML.escape(group.group), HTML.escape(topic)] + (0..<width).map { index in
                    guard let partition = byIndex[index] else { return "" }
                    let committed = partition.committed.map(String.init) ?? "none"
                    let cell = "<span title=\"committed \(committed), end \(partition.end)\">\(partition.lag)</span>"
                    return partition.lag > 0 ? "<strong>\(cell)</strong>" : cell
                }
            }
        }
        return HTML.table(["group", "topic"] + (0..<width).map { "partition \($0)" }, rows, empty: "no consumer groups read yet")
    }

    /// `flows` with their paths; with a `grace`, those started longer ago are marked stuck.
    static func flows(_ flows: [ConsoleView.Flow], now: Date, grace: Duration?) -> String {
        HTML.table(["kind", "id", "started", "standing", "path"], flows.map { flow in
            let age = flow.started.map { now.timeIntervalSince($0) } ?? 0
            let stuck = grace.map { age > $0.timeInterval } ?? false
            return [HTML.escape(flow.kind), "<code>\(HTML.escape(flow.id))</code>", HTML.escape(flow.started.map(time) ?? "-"),
                    stuck ? "<span class=\"stuck\">stuck \(Int(age)) s</span>" : HTML.escape(flow.path.standing),
                    "<pre>\(HTML.escape(flow.path.lines.joined(separator: "\n")))</pre>"]
        }, empty: "none in the window")
    }

    /// How many letters each dead-letter topic holds (its end less its start), whatever the window shows.
    static func deadLetterDepths(_ state: ConsoleState) -> String {
        let depths = Dictionary(state.offsets.filter { DeadLetterCommand.topics.contains($0.key.topic) }.map {
            ($0.key.topic, $0.value.high - $0.value.low)
        }, uniquingKeysWith: +)
        let held = depths.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        return "<p>On the dead-letter topics: " + (held.isEmpty ? "none" : held.map { "\(HTML.escape($0.key)) \($0.value)" }.joined(separator: ", "))
            + ".</p>"
    }

    /// The audit's findings, with when it ran and when it runs next.
    static func audit(_ state: ConsoleState, now: Date) -> String {
        guard let audit = state.audit else { return "<h2>Audit findings</h2><p class=\"empty\">The first audit is under way.</p>" }
        let age = "ran \(HTML.escape(time(audit.ranAt))), \(Int(now.timeIntervalSince(audit.ranAt))) s ago"
            + (state.nextAudit.map { "; next at \(HTML.escape(time($0)))" } ?? "")
        switch audit.findings {
        case .success(let report):
            let disabled = report.disabled.isEmpty ? "" : " Disabled: " + report.disabled.map { "<code>\(HTML.escape($0))</code>" }
                .joined(separator: ", ") + " (<code>registrar operator enable</code> brings one back)."
            return "<h2>Audit findings (\(report.findings.count))</h2><p class=\"age\">The audit of the stores \(age).</p>"
                + HTML.table(["kind", "subject", "detail"], report.findings.map {
                    [HTML.escape($0.kind.rawValue), HTML.escape($0.subject), HTML.escape($0.detail)]
                }, empty: "no half-registered users")
                + "<p class=\"census\">\(HTML.escape(report.census.prefix(1).uppercased() + report.census.dropFirst())).\(disabled)</p>"
        case .failure(let error):
            return "<h2>Audit findings</h2><p class=\"problem\">The audit \(age) failed: \(HTML.escape("\(error)"))</p>"
        }
    }

    static func letterCells(_ letter: KafkaMessage) -> [String] {
        let header = { DeadLetterCommand.text(letter, $0) ?? "?" }
        let headers = letter.headers.map { "\($0.key): \($0.value.map { String(decoding: $0, as: UTF8.self) } ?? "")" }
        let value = String(validating: letter.value, as: UTF8.self) ?? "base64: " + Data(letter.value).base64EncodedString()
        return ["<code>\(HTML.escape(position(of: letter)))</code><br>\(HTML.escape(letter.timestamp.map(time) ?? "-"))",
                HTML.escape(header("dlq.reason")), HTML.escape("\(header("dlq.topic"))@\(header("dlq.offset")) by \(header("dlq.worker"))"),
                "<pre>\(HTML.escape(headers.joined(separator: "\n")))</pre>", "<code>\(HTML.escape(letter.keyString ?? ""))</code>",
                "<pre>\(HTML.escape(String(value.prefix(500))))</pre>"]
    }

    static func replayForm(_ letter: KafkaMessage, token: String, confirm: Bool) -> String {
        """
        <form method="post" action="/replay" data-letter="\(HTML.escape(position(of: letter)))">\
        <input type="hidden" name="token" value="\(HTML.escape(token))">\
        <input type="hidden" name="letter" value="\(HTML.escape(position(of: letter)))">\
        \(confirm ? "<input type=\"hidden\" name=\"confirm\" value=\"yes\"><button type=\"submit\">Replay it</button>"
                  : "<button type=\"submit\">Replay…</button>")</form>
        """
    }
}
