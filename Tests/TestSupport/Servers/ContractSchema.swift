import Foundation

/// The published contract (`contract/` at the package root), checked with a real JSON Schema
/// validator: `contract/validate.py`, Python's jsonschema (Draft 2020-12), which also checks that
/// the schema is valid and that `asyncapi.yaml` names every event it defines.
public enum ContractSchema {
    /// The package's `contract/` directory.
    public static let directory = Binaries.packageRoot + "/contract"

    /// `events.schema.json`, parsed.
    public static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/events.schema.json"))
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestServerError("events.schema.json is not a JSON object")
        }
        return document
    }

    /// Validates message bodies in one validator process: writes them as JSON lines into `workDirectory`
    /// and returns the exit status (0 when every body is valid) and the validator's report lines, the
    /// last of which reads `<n> events checked, <m> invalid`.
    /// With `accountEvents`, the bodies are messages of `account.events`, checked against `account-events.schema.json`.
    public static func validate(_ bodies: [[UInt8]], in workDirectory: String, accountEvents: Bool = false) throws -> (status: Int32, report: [String]) {
        let input = workDirectory + (accountEvents ? "/account-events.jsonl" : "/events.jsonl")
        try Data(bodies.flatMap { $0 + [0x0A] }).write(to: URL(fileURLWithPath: input))
        // The shell reports the validator's status as a last line, so that an invalid batch is an answer, not an error.
        let output = try runCommand("/bin/sh", ["-c", "/usr/bin/python3 \"$0\" $2 < \"$1\" 2>&1; echo \"exit $?\"",
                                                directory + "/validate.py", input, accountEvents ? "account-events" : ""])
        var report = output.split(separator: "\n").map(String.init)
        let status = report.popLast().flatMap { Int32($0.dropFirst("exit ".count)) } ?? -1
        return (status, report)
    }
}
