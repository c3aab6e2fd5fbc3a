import Backends
import Console
import Domain
import Foundation
import HTTPServer
import Kafka
import Registration
import S3Store
import SQLStores
@testable import TestSupport
import Testing

/// The console never reads a whole topic: on a topic holding far more than its window, it keeps the last `window`
/// messages of each partition, and its page still counts every message through the partitions' offsets (lag).
@Suite(.tags(.kafka)) struct ConsoleWindowTests {
    @Test func theConsoleKeepsTheLastMessagesOfEachPartitionAndCountsTheRestByOffsets() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopics(Topic.all.map { ($0.name, $0.partitions) })
        let kafka = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "console-window-test")
        let producer = try KafkaProducer(configuration: kafka)
        for index in 0..<1800 {
            let request = RegistrationRequested(registrationId: "window-\(index)", email: "window-\(index)@example.com", name: "Window",
                                                sealedPassword: "sealed", sealedCode: nil, replyKey: "key", avatar: nil, isMapLocationEnabled: false)
            try await producer.enqueue(OutgoingMessage(topic: Topic.registrationRequests, key: request.registrationId,
                                                       value: EventCodec.encode(.registrationRequested(request)), partition: Int32(index % 6)))
        }
        try await producer.flush(timeout: .seconds(60))
        await producer.close()

        let directory = FileManager.default.temporaryDirectory.path + "/console-window-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stores = BackendOptions(dataDirectory: directory)
        let audit = RegistrationAudit(accounts: try stores.accountStore(), profiles: try stores.profileStore(), images: try stores.objectStore())
        var settings = Console.Settings(operators: ConsoleRouteTests.operators, hostNames: [ConsoleRouteTests.host])
        settings.isLocalBroker = true
        settings.perPartition = 100
        settings.refresh = 1
        let console = try Console(kafka: kafka, audit: audit, settings: settings)
        let reading = Task { await console.run() }
        defer { reading.cancel() }
        let deadline = ContinuousClock.now + .seconds(60)
        while !console.isReady || console.windowSize < 600, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        await console.refresh()
        try await Task.sleep(for: .seconds(1))
        #expect(console.windowSize == 600, "100 of each partition's 300 messages")

        let page = await ConsoleRouteTests.get(console, "/")
        #expect(page.status == 200)
        #expect(page.text.contains("in flight (600, stuck after"), "the window's registrations, none older")
        #expect(page.text.contains("window-1799") && !page.text.contains("window-1199@"), "the newest, not the older ones")
        #expect(page.text.contains("<td>account-worker</td><td>registration.requests</td><td><strong><span title=\"committed none, end 300\">300</span></strong>"),
                "each partition's lag from its offsets: all 300 messages")
        #expect(page.text.contains("<td>1800</td>"), "the account worker's lag: every message of the topic")
    }
}
