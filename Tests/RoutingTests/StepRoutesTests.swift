import Domain
import Foundation
import Support
@testable import TestSupport
import Testing
import WorkerAssembly

/// The routes of every worker's steps against the topic contract: each input topic is read by some
/// step, each route is claimed once, and `contract/asyncapi.yaml` lists, for each consumed channel,
/// exactly the message types the steps take there.
@Suite(.tags(.unit)) struct StepRoutesTests {
    /// Every worker's steps' routes, as the worker kinds assemble them.
    static var routes: [Route] { TopicAccess.workers.flatMap { $0.steps.flatMap { $0.routes } } }

    @Test func noRouteIsTakenByTwoSteps() {
        let counted = Dictionary(Self.routes.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(counted.filter { $0.value > 1 }.isEmpty)
    }

    @Test func eachRouteIsOnTheTopicItsTypeIsPublishedTo() {
        #expect(Self.routes.filter { $0.topic != $0.type.topic }.isEmpty)
    }

    /// The contract's routing table (`StepRoutes`, which `Topic.inputs` is derived from) is exactly what the
    /// workers' steps take.
    @Test func theRoutingTableIsTheStepsRoutes() {
        #expect(StepRoutes.all == Set(Self.routes))
    }

    @Test func theInputTopicsAreTheTopicsOfTheRoutesAndEachHasADeadLetterTopic() {
        #expect(Set(Topic.inputs) == Set(Self.routes.map(\.topic)))
        #expect(Topic.inputs.count == Set(Topic.inputs).count)
        let created = Set(Topic.all.map(\.name))
        #expect(Topic.inputs.allSatisfy { created.contains($0) && created.contains(Topic.deadLetters(of: $0)) })
    }

    @Test func theAsyncAPIChannelsOfTheInputTopicsListExactlyTheRoutedTypes() async throws {
        let channels = try await AsyncAPIDocument.channels().mapValues(\.messages)
        let documented = Set(channels.filter { Topic.inputs.contains($0.key) }.flatMap { address, messages in
            messages.map { "\($0) on \(address)" }
        })
        let routed = Set(Self.routes.map(\.description))
        #expect(documented.subtracting(routed).sorted() == [], "documented but not taken")
        #expect(routed.subtracting(documented).sorted() == [], "taken but not documented")
    }
}
