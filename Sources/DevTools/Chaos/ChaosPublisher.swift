import Installation
import Kafka

/// The chaos run's producer, which follows the local broker across restarts. A restarted broker starts
/// empty, so everything published before the restart is published again on the new one, as clients
/// left without an answer do: a re-published request gets the outcome its workers stored.
actor ChaosPublisher {
    private let installation: LocalInstallation
    private var producer: KafkaProducer
    private var published: [OutgoingMessage] = []
    private var restarting = false

    init(_ installation: LocalInstallation) throws {
        self.installation = installation
        producer = try KafkaProducer(configuration: Self.configuration(installation))
    }

    /// Publishes `message` (waiting out a restart in progress).
    func publish(_ message: OutgoingMessage) async throws {
        while restarting { try await Task.sleep(for: .milliseconds(100)) }
        published.append(message)
        let current = producer
        do {
            try await current.enqueue(message)
        } catch {
            // Unless the broker restarted meanwhile: then the message was published again on the new one.
            if current === producer { throw error }
        }
    }

    /// SIGKILLs the local broker, runs `outage` while it is down, starts it again and publishes everything so far
    /// again on the new one.
    func killBroker(during outage: @Sendable () async throws -> Void) async throws {
        restarting = true
        // What the old broker has not taken is lost with it, and published again below.
        await producer.close(flushTimeout: .seconds(1))
        do {
            await installation.killBroker()
            try await outage()
            try await installation.startBrokerAgain()
            producer = try KafkaProducer(configuration: Self.configuration(installation))
            for message in published { try await producer.enqueue(message) }
        } catch {
            restarting = false
            throw error
        }
        restarting = false
    }

    /// Waits until everything is delivered, then closes the producer.
    func finish() async throws {
        try await producer.flush(timeout: .seconds(120))
        await producer.close()
    }

    /// A producer configuration for the installation's broker as it is now, taking messages up to a
    /// default Apache Kafka broker's limit (the oversized hostile messages).
    private static func configuration(_ installation: LocalInstallation) -> KafkaConfiguration {
        var configuration = installation.kafka(clientID: "registrar-chaos")
        configuration.properties["message.max.bytes"] = "1048576"
        return configuration
    }
}
