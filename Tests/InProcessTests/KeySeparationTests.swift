import Domain
import Foundation
import Kafka
import StoreTesting
import Support
import Testing
import WorkerAssembly

/// The image worker (which parses untrusted images) and the profile worker hold no key: they run on an
/// embedded data directory without ever opening or creating `<data>/keys`.
@Suite struct KeySeparationTests {
    @Test func imageAndProfileWorkersRunWithoutAKeyDirectory() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-keyless-\(UUID().uuidString.prefix(8))").path
        try createPrivateDirectory(data)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let cluster = try MockCluster(brokers: 1)
        for topic in Topic.all { try cluster.createTopic(topic.name, partitions: topic.partitions) }
        let arguments = ["--data-dir", data, "--bootstrap", cluster.bootstrapServers]
        let shutdown = ShutdownSignal(signals: [])
        let image = try ParsedArguments(arguments, spec: ImageWorker.spec, environment: [:])
        let profile = try ParsedArguments(arguments, spec: ProfileWorker.spec, environment: [:])
        let workers = [Task { try await ImageWorker.run(image, until: shutdown) },
                       Task { try await ProfileWorker.run(profile, until: shutdown) }]
        try await Task.sleep(for: .seconds(2))
        shutdown.trigger()
        for worker in workers { try await worker.value }
        #expect(FileManager.default.fileExists(atPath: data + "/profiles.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: data + "/keys"))
    }
}
