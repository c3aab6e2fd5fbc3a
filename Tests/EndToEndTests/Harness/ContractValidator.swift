import Foundation
import Kafka
import Support

/// Checks message bodies against the published contract with `contract/validate.py` (Python's
/// jsonschema, Draft 2020-12): writes them as JSON lines into `directory`, returns the exit status
/// and the validator's report lines.
enum ContractValidator {
    static func validate(_ messages: [KafkaMessage], in directory: String) async throws -> (status: Int32, report: [String]) {
        let input = directory + "/events.jsonl"
        try Data(messages.flatMap { $0.value + [0x0A] }).write(to: URL(fileURLWithPath: input))
        let validator = try ChildProcess("/bin/sh", ["-c", "/usr/bin/python3 \(Binaries.packageRoot)/contract/validate.py < \(input)"])
        var report: [String] = []
        while let line = await validator.nextLine() { report.append(line) }
        return (await validator.waitForExit(), report)
    }
}
