import Foundation

/// The published contract (`contract/` at the package root), checked with a real JSON Schema
/// validator: `contract/validate.py`, Python's jsonschema (Draft 2020-12), which also checks that
/// the schema is valid and that `asyncapi.yaml` names every event it defines.
public enum ContractSchema {
    /// The package's `contract/` directory.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("contract").path

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
    public static func validate(_ bodies: [[UInt8]], in workDirectory: String) throws -> (status: Int32, report: [String]) {
        let input = workDirectory + "/events.jsonl"
        let output = workDirectory + "/events.report"
        try Data(bodies.flatMap { $0 + [0x0A] }).write(to: URL(fileURLWithPath: input))
        try? FileManager.default.removeItem(atPath: output)
        let status = try SpawnedProcess("/bin/sh", ["-c", "exec /usr/bin/python3 \"$0\" < \"$1\"", directory + "/validate.py", input],
                                        outputPath: output).wait()
        let report = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (status, report.split(separator: "\n").map(String.init))
    }
}
