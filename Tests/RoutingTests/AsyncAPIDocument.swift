import Foundation
import Support
@testable import TestSupport
import Testing

/// The channels of `contract/asyncapi.yaml`, read with Python's YAML parser.
enum AsyncAPIDocument {
    /// One channel: its message names and its Kafka binding (partitions, topic configuration).
    struct Channel: Decodable {
        var messages: [String]
        var partitions: Int32?
        var retentionMilliseconds: Int64?
        var cleanupPolicy: [String]?
    }

    /// Each channel by address.
    static func channels() async throws -> [String: Channel] {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("contract/asyncapi.yaml").path
        let script = """
            import json, sys, yaml
            channels = yaml.safe_load(open(sys.argv[1]))["channels"].values()
            def channel(c):
                kafka = (c.get("bindings") or {}).get("kafka") or {}
                topic = kafka.get("topicConfiguration") or {}
                return {"messages": list(c.get("messages") or {}), "partitions": kafka.get("partitions"),
                        "retentionMilliseconds": topic.get("retention.ms"), "cleanupPolicy": topic.get("cleanup.policy")}
            print(json.dumps({c["address"]: channel(c) for c in channels}))
            """
        let python = try ChildProcess("/usr/bin/python3", ["-c", script, document])
        let line = await python.nextLine()
        #expect(await python.waitForExit() == 0)
        return try JSONDecoder().decode([String: Channel].self, from: Data(try #require(line).utf8))
    }
}
