import Backends
import Console
import Crypto
import Domain
import EventTransport
import Foundation
import HTTPServer
import Kafka
import Registration
import S3Store
import SQLStores
import Support

/// `registrar-dev bench console`: the operator console on a topic of a million messages (`--messages`), on a mock
/// cluster in this process (in memory): how long the console takes to read its window and how long each page takes
/// to answer (through HTTP, with an operator's credentials), next to what the console used to do on each reload —
/// read and decode the whole topic (`TopicSnapshot` of everything), timed in the same run. Prints figures only.
public enum ConsoleBenchCommand {
    static let spec = CommandSpec(
        name: "registrar-dev bench console", summary: "the console's answer time on a topic of a million messages",
        usage: "[--messages N] [--window N] [--requests N]",
        options: [
            .value("messages", "Messages on registration.requests", default: "1000000"),
            .value("window", "The console's window: messages kept of each partition", default: "1000"),
            .value("requests", "Pages asked for", default: "20"),
        ])

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let count = max(1, try parsed.integer("messages") ?? 1_000_000)
            let window = max(1, try parsed.integer("window") ?? 1000)
            let requests = max(1, try parsed.integer("requests") ?? 20)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-bench-\(UUID().uuidString.prefix(8))").path
            try PrivateFiles.prepareDirectory(directory)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let cluster = try MockCluster(brokers: 1)
            try cluster.createTopics(Topic.all.map { ($0.name, $0.partitions) })
            let kafka = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "console-bench")
            print("\(LoadAverage.now); filling \(Topic.registrationRequests) with \(count) messages")
            let (filled, _) = try await time { try await fill(Topic.registrationRequests, count: count, kafka: kafka) }
            print(String(format: "filled in %.1f s (%.0f messages/s)", filled.timeInterval, Double(count) / filled.timeInterval))
            try await measure(kafka: kafka, directory: directory, window: window, requests: requests, count: count)
            print(LoadAverage.now)
            return .success
        }
    }

    private static func measure(kafka: KafkaConfiguration, directory: String, window: Int, requests: Int, count: Int) async throws {
        let password = SecureRandom.token(bytes: 16)
        try OperatorFile.add("bench", password: password, to: directory + "/operators")
        var settings = Console.Settings(operators: try OperatorFile(contentsOf: directory + "/operators"), hostNames: ["127.0.0.1"])
        settings.isLocalBroker = true
        settings.perPartition = window
        let stores = BackendOptions(dataDirectory: directory)
        let audit = RegistrationAudit(accounts: try stores.accountStore(), profiles: try stores.profileStore(), images: try stores.objectStore())
        let console = try Console(kafka: kafka, audit: audit, settings: settings)
        let started = ContinuousClock.now
        let reading = Task { await console.run() }
        defer { reading.cancel() }
        while !console.isReady || console.windowSize < min(count, window * Int(Topic.all[0].partitions)) {
            try await Task.sleep(for: .milliseconds(20))
        }
        await console.refresh()  // the view of the whole window, as the next scheduled refresh would make it
        let ready = ContinuousClock.now - started
        let server = try HTTPServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, bodyLimit: { _, _ in 0 }), handler: console.handle)
        let authorization = "Basic " + Data("bench:\(password)".utf8).base64EncodedString()
        var times: [Duration] = []
        var bytes = 0
        for _ in 0..<requests {
            let (took, page) = try await time { try await get("http://127.0.0.1:\(server.port)/", authorization: authorization) }
            guard page.status == 200 else { throw CommandFailure("the console answered \(page.status)") }
            times.append(took)
            bytes = page.body
        }
        await server.stop()
        reading.cancel()
        let (whole, _) = try await time {
            let snapshot = try await TopicSnapshot.take([Topic.registrationRequests], configuration: kafka, timeout: .seconds(600))
            return snapshot.messages.reduce(0) { $0 + ((try? EventCodec.decode($1.value)) == nil ? 0 : 1) }
        }
        let sorted = times.sorted()
        print("console: window of \(window) messages per partition (\(console.windowSize) held); first complete read after "
              + String(format: "%.2f s", ready.timeInterval))
        print(String(format: "console: %d pages of %d bytes over HTTP: p50 %.1f ms, max %.1f ms", requests, bytes,
                     sorted[sorted.count / 2].timeInterval * 1000, sorted.last!.timeInterval * 1000))
        print(String(format: "baseline: reading and decoding all %d messages of the topic (what each reload of each tab did before): %.1f s",
                     count, whole.timeInterval))
        print("console RSS: \(ProcessUsage(pid: getpid()).map { "\($0.residentBytes >> 20) MiB" } ?? "?")")
    }

    /// Puts `count` registration requests (about 300 bytes each) on `topic`.
    private static func fill(_ topic: String, count: Int, kafka: KafkaConfiguration) async throws {
        var configuration = kafka
        configuration.properties["linger.ms"] = "20"
        configuration.properties["batch.num.messages"] = "10000"
        let producer = try KafkaProducer(configuration: configuration)
        for index in 0..<count {
            let id = "bench-\(index)"
            let request = Event.registrationRequested(RegistrationRequested(
                registrationId: id, email: "bench-\(index)@example.com", name: "Bench \(index)", sealedPassword: String(repeating: "A", count: 120), sealedCode: nil,
                replyKey: String(repeating: "B", count: 44), avatar: nil, isMapLocationEnabled: false))
            try await producer.enqueue(OutgoingMessage(topic: topic, key: id, value: EventCodec.encode(request)))
        }
        try await producer.flush(timeout: .seconds(600))
        await producer.close()
    }

    /// A GET of `url` with curl: the status and the body's size.
    private static func get(_ url: String, authorization: String) async throws -> (status: Int, body: Int) {
        let curl = try ChildProcess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                                                      "-H", "Authorization: \(authorization)", url], errors: .discarded)
        let line = await curl.nextLine() ?? ""
        _ = await curl.waitForExit()
        let parts = line.split(separator: " ").compactMap { Int($0) }
        return (parts.first ?? 0, parts.last ?? 0)
    }

    private static func time<T>(_ work: () async throws -> T) async throws -> (Duration, T) {
        let start = ContinuousClock.now
        let result = try await work()
        return (ContinuousClock.now - start, result)
    }
}
