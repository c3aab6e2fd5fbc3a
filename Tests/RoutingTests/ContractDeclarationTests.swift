import Domain
import Foundation
@testable import TestSupport
import Testing

/// The flows' declaration (`Flow.all`, and the announcements) as the one source of the contract's tables: every event
/// type declared once, the AsyncAPI document's channels listing exactly the declared types, and no second copy of a topic's
/// or a worker's name, or of a pairing of topics, written anywhere in `Sources/`.
@Suite(.tags(.unit)) struct ContractDeclarationTests {
    @Test func everyEventTypeIsDeclaredByExactlyOneFlow() {
        let declared = Flow.all.flatMap(\.messages).flatMap(\.types)
        #expect(declared.count == Set(declared).count, "a type declared twice")
        #expect(Set(declared) == Set(Event.Kind.allCases))
    }

    /// Every account event type is announced by one role, on a topic no flow uses and no worker reads.
    @Test func everyAccountEventTypeIsAnnouncedByOneRoleOnATopicOfItsOwn() {
        #expect(Set(Announcements.account.producers.keys) == Set(AccountEvent.Kind.allCases))
        #expect(!Flow.all.flatMap(\.messages).map(\.topic).contains(Announcements.account.topic))
        #expect(!Topic.inputs.contains(Announcements.account.topic))
        #expect(Topic.all.contains { $0.name == Announcements.account.topic })
    }

    /// A client's requests carry no signature; the operator's are signed by the operator role, which signs nothing else.
    @Test func requestsAreUnsignedOrTheOperatorsAndAnsweredByTheirHandler() {
        for flow in Flow.all {
            #expect(flow.requests.producer == (flow.name == Flow.operatorActions.name ? .operator : nil), "\(flow.name)")
            #expect(flow.outcomes.producer == flow.handler, "\(flow.name)")
            #expect(Topic.inputs.contains(flow.requests.topic), "\(flow.name)")
            #expect(flow.refusal("r", .requestInvalid, "m").topic == flow.outcomes.topic, "\(flow.name)")
        }
        #expect(Set(Flow.all.map(\.requests.topic)).count == Flow.all.count, "a request topic serves one flow")
        #expect(Event.Kind.allCases.filter { $0.producers.contains(.operator) } == [.operatorRequested])
        #expect(!WorkerRole.workers.contains(.operator) && !Announcements.account.roles.contains(.operator))
    }

    @Test func theAsyncAPIChannelsListExactlyTheDeclaredTypes() async throws {
        let channels = try await AsyncAPIDocument.channels()
        for topic in Topic.all.map(\.name) where !topic.hasSuffix(".dlq") {
            let announced = Announcements.all.filter { $0.topic == topic }.flatMap { $0.producers.keys.map(\.rawValue) }
            let declared = Set(Event.Kind.allCases.filter { $0.topic == topic }.map(\.rawValue) + announced)
            #expect(Set(channels[topic]?.messages ?? []) == declared, "\(topic)")
        }
    }

    /// A topic's name is written in `Domain/Topics.swift` only, a worker's name nowhere (its role's), and no
    /// source pairs topics by a `switch` of its own (`case Topic.…`): the pairings are the declaration's.
    @Test func noSourceRepeatsWhatTheDeclarationSays() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let topics = Topic.all.map(\.name).filter { !$0.hasSuffix(".dlq") }
        let names = (topics + WorkerRole.allCases.map(\.workerName)).map { "\"\($0)\"" }
        var copies: [String] = []
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let path = String(file.path.dropFirst(sources.path.count + 1))
            let text = try String(contentsOf: file, encoding: .utf8)
            for name in names where text.contains(name) && path != "Domain/Topics.swift" { copies.append("\(name) in \(path)") }
            if text.contains("case Topic.") { copies.append("a switch over topics in \(path)") }
        }
        #expect(copies == [])
    }
}
