import Domain
import Kafka

/// Checks the bodies of messages read from the topics against the published contract
/// (`ContractSchema.validate`, one validator process for the flows' events and one for the account events).
enum ContractValidator {
    /// The validators' status (the worse) and their reports, whose last line counts every message checked and those invalid.
    static func validate(_ messages: [KafkaMessage], in directory: String) async throws -> (status: Int32, report: [String]) {
        let isAnnouncement = { (message: KafkaMessage) in Announcements.all.contains { $0.topic == message.topic } }
        let flows = try ContractSchema.validate(messages.filter { !isAnnouncement($0) }.map(\.value), in: directory)
        let announced = try ContractSchema.validate(messages.filter(isAnnouncement).map(\.value), in: directory, accountEvents: true)
        let counts = [flows, announced].compactMap { $0.report.last?.split(separator: " ").compactMap { Int($0) } }
        let summary = "\(counts.map { $0.first ?? 0 }.reduce(0, +)) events checked, \(counts.map { $0.last ?? 0 }.reduce(0, +)) invalid"
        return (max(flows.status, announced.status), flows.report.dropLast() + announced.report.dropLast() + [summary])
    }
}
