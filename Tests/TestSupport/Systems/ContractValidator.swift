import Kafka

/// Checks the bodies of messages read from the topics against the published contract
/// (`ContractSchema.validate`, one validator process for the whole batch).
enum ContractValidator {
    static func validate(_ messages: [KafkaMessage], in directory: String) async throws -> (status: Int32, report: [String]) {
        try ContractSchema.validate(messages.map(\.value), in: directory)
    }
}
