import Domain
import EventTransport
import Foundation
import Kafka

/// The chaos run's traffic: registrations of every kind, some re-published, some for emails used
/// twice, code requests and sign-ins among them, plus hostile messages that must end in the
/// dead-letter topics. A share of the registrations, code requests and sign-ins go through the gateway
/// (`AppClient`) instead of the topics.
struct ChaosWorkload {
    /// The password of the registration `id`: a phrase the dictionary check takes, then the id (0 of 20,000 such
    /// passwords refused, measured with libpwquality's settings of `DictionaryBlocklist`; `password-<id>` was
    /// refused `password_too_common` about once in 750, failing a chaos run now and then).
    static func password(of id: String) -> String { "purple elephant dances quietly \(id)" }

    /// One registration and the outcome it must end with.
    struct Registration {
        var request: RegistrationRequested
        /// The reason it must fail with, or nil when it must complete (or lose a race for its email: then `email_taken`,
        /// or `invalid_credentials` when the winner used the address's register code first).
        var expectedFailure: ReasonCode?
        var racesForEmail: Bool
        /// Whether an app sends it to the gateway (the plain password and code, its id as the `Idempotency-Key`).
        var viaGateway = false
    }

    /// What happens to an account once its registration completed (its owner signs in first, with its password).
    enum LifecycleAction: Equatable {
        /// `PATCH /me` (`ProfileUpdateRequested`): a new name, the map flag switched and a new avatar; a corrupt one is
        /// refused `image_corrupt`, and the update undone.
        case update(name: String, isMapLocationEnabled: Bool, corruptAvatar: Bool)
        /// `DELETE /me` (`AccountDeletionRequested`), re-authenticated by the password.
        case delete
    }

    /// A password sign-in an app sends to the gateway.
    struct GatewaySignIn {
        var key: String
        var email: String
        var password: String
    }

    var registrations: [Registration] = []
    var republished: [RegistrationRequested] = []
    /// Code requests (some for the same email within the cooldown: refused with `retryAfter`).
    var codeRequests: [CodeRequested] = []
    /// Password sign-ins of registering users (early ones may find no active account yet).
    var signIns: [TokenRequested] = []
    /// Code requests and sign-ins the apps send to the gateway.
    var gatewayCodeRequests: [CodeRequested] = []
    var gatewaySignIns: [GatewaySignIn] = []
    /// The register codes, by normalised address (the apps send theirs in plain).
    var codes: [String: MailedCodes.Mailed] = [:]
    /// The updates and deletions of completed registrations, by registration id (none of an address two registrations race for).
    var lifecycle: [String: LifecycleAction] = [:]
    /// Messages no worker can process, each with the `dlq.reason` it must be dead-lettered with.
    var hostile: [(message: OutgoingMessage, reason: DeadLetterReason)] = []

    /// The requests that had the registrations' register codes mailed, before the run: their mail is counted as sent.
    var registerCodeRequests: Set<String> = []

    /// The addresses the workload registers (a registration for an address used twice races for it): `user<i>@example.com`.
    static func emails(count: Int) -> [String] { (0..<count).map { "user\($0)@example.com" } }

    /// - Parameters:
    ///   - codes: The register code mailed to each of ``emails(count:)``, by normalised address.
    ///   - gatewayShare: The percentage of registrations, code requests and sign-ins sent through the gateway.
    ///   - updateShare, deletionShare: The percentages of the registrations that must complete whose profile is then
    ///     updated, and whose account is then deleted (no code request or sign-in of the run names a deleted address).
    ///   - oversized: Whether the hostile messages include ones over the decoder's limit (up to
    ///     1,000,500 bytes), mistyped fields, unknown fields and a mistyped version, as `--long-faults` publishes.
    init(count: Int, codes: [String: MailedCodes.Mailed], seal: (String, SealedSecret.Purpose, SealContext) -> String, replyKey: String,
         photo: [UInt8], gatewayShare: Int = 0, updateShare: Int = 0, deletionShare: Int = 0, oversized: Bool = false,
         using generator: inout some RandomNumberGenerator) {
        registerCodeRequests = Set(codes.values.map(\.requestId))
        self.codes = codes
        for index in 0..<count {
            let id = "chaos-\(index)-\(UUID().uuidString.prefix(8).lowercased())"
            let roll = Int.random(in: 0..<100, using: &generator)
            var email = "user\(index)@example.com"
            var avatar: AvatarSource?
            var expected: ReasonCode?
            var races = false
            switch roll {
            case 0..<10: avatar = .inline(Data(photo).base64EncodedString())
            case 10..<15:
                avatar = .inline(Data(photo.prefix(photo.count / 2)).base64EncodedString())
                expected = .imageCorrupt
            case 15..<25 where index > 0:
                email = "USER\(Int.random(in: 0..<index, using: &generator))@Example.com"
                races = true
            default: break
            }
            let context = SealContext(requestId: id, email: email, replyKey: replyKey)
            let request = RegistrationRequested(registrationId: id, email: email, name: "Chaos \(index)",
                                                sealedPassword: seal(Self.password(of: id), .registrationPassword, context),
                                                sealedCode: codes[RegistrationRules.normalizedEmail(email)].map { seal($0.code, .code, context) },
                                                replyKey: replyKey, avatar: avatar,
                                                isMapLocationEnabled: roll.isMultiple(of: 2))
            let viaGateway = Int.random(in: 0..<100, using: &generator) < gatewayShare
            registrations.append(Registration(request: request, expectedFailure: expected, racesForEmail: races, viaGateway: viaGateway))
            if !viaGateway, Int.random(in: 0..<100, using: &generator) < 5 { republished.append(request) }
        }
        for registration in registrations where registration.racesForEmail {
            // The other registration of this email races too: whichever comes first wins.
            let email = RegistrationRules.normalizedEmail(registration.request.email)
            for index in registrations.indices where RegistrationRules.normalizedEmail(registrations[index].request.email) == email {
                registrations[index].racesForEmail = true
            }
        }
        for (index, registration) in registrations.enumerated() where registration.expectedFailure == nil && !registration.racesForEmail {
            let roll = Int.random(in: 0..<100, using: &generator)
            if roll < deletionShare {
                lifecycle[registration.request.registrationId] = .delete
            } else if roll < deletionShare + updateShare {
                lifecycle[registration.request.registrationId] = .update(
                    name: "Renamed \(index)", isMapLocationEnabled: !registration.request.isMapLocationEnabled, corruptAvatar: roll.isMultiple(of: 4))
            }
        }
        let deleted = Set(registrations.filter { lifecycle[$0.request.registrationId] == .delete }.map(\.request.email))
        for index in 0..<count / 4 {
            let address = "user\(Int.random(in: 0..<count, using: &generator))@example.com"
            let email = Bool.random(using: &generator) && !deleted.contains(address) ? address : "stranger\(index % 20)@example.com"
            let code = CodeRequested(requestId: "code-\(index)-\(UUID().uuidString.prefix(8).lowercased())", email: email, purpose: .login)
            if Int.random(in: 0..<100, using: &generator) < gatewayShare { gatewayCodeRequests.append(code) } else { codeRequests.append(code) }
            let user = registrations[Int.random(in: 0..<max(1, count / 2), using: &generator)].request
            guard !deleted.contains(user.email) else { continue }
            let signIn = SealContext(requestId: "signin-\(index)-\(UUID().uuidString.prefix(8).lowercased())", email: user.email,
                                     replyKey: replyKey)
            if Int.random(in: 0..<100, using: &generator) < gatewayShare {
                gatewaySignIns.append(GatewaySignIn(key: signIn.requestId, email: user.email, password: Self.password(of: user.registrationId)))
                continue
            }
            signIns.append(TokenRequested(requestId: signIn.requestId, grantType: .password, email: user.email,
                                          sealedCredential: seal(Self.password(of: user.registrationId), .signInPassword, signIn), replyKey: replyKey))
        }
        let garbage = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for topic in Topic.inputs {
            let bodies = [(garbage, DeadLetterReason(.notJSON))] + Self.mistyped + (oversized ? Self.oversizedAndMistyped : [])
            for (value, reason) in bodies {
                let key = Array("hostile-\(hostile.count)".utf8)
                hostile.append((OutgoingMessage(topic: topic, key: key, value: value, headers: []), reason))
            }
        }
    }

    /// A request without its fields, and an event of a type no worker knows.
    private static let mistyped: [([UInt8], DeadLetterReason)] = [
        (Array(#"{"type":"RegistrationRequested","version":1}"#.utf8), DeadLetterReason(.invalidFields)),
        (Array(#"{"type":"Unknown","version":1,"registrationId":"x"}"#.utf8), DeadLetterReason(.unknownType)),
    ]

    /// Messages over the decoder's limit, naming a flow id the way every request topic's requests do (so
    /// that a request gets its failure); fields of the wrong JSON types, a field no event has, and a version
    /// that is a string.
    private static let oversizedAndMistyped: [([UInt8], DeadLetterReason)] = {
        let naming = Array(#"{"registrationId":"hostile-request","requestId":"hostile-request","type":"RegistrationRequested","version":1}"#.utf8)
        return [
            (padded(naming, to: ContractLimits.messageBytes + 1), DeadLetterReason(.tooLarge)),
            (padded(naming, to: 1_000_500), DeadLetterReason(.tooLarge)),
            (Array(#"{"type":"CodeRequested","version":1,"requestId":7,"email":true,"purpose":["login"]}"#.utf8), DeadLetterReason(.invalidFields)),
            (Array(#"{"type":"CodeRequested","version":1,"requestId":"hostile-request","email":"a@example.com","purpose":"login","admin":true}"#.utf8),
             DeadLetterReason(.invalidFields)),
            (Array(#"{"type":"RegistrationRequested","version":"1"}"#.utf8), DeadLetterReason(.unsupportedVersion)),
        ]
    }()

    /// `bytes` followed by spaces up to `size` bytes.
    private static func padded(_ bytes: [UInt8], to size: Int) -> [UInt8] {
        bytes + [UInt8](repeating: 0x20, count: size - bytes.count)
    }

    /// Registrations, code requests and hostile messages, shuffled.
    func messages(using generator: inout some RandomNumberGenerator) -> [OutgoingMessage] {
        let requests = ((topicRegistrations.map(\.request) + republished).map(Event.registrationRequested)
            + codeRequests.map(Event.codeRequested)).map(Self.message)
        return (requests + hostile.map(\.message)).shuffled(using: &generator)
    }

    /// The sign-ins, published once the first half's registrations have their outcomes.
    var signInMessages: [OutgoingMessage] { signIns.map(Event.tokenRequested).map(Self.message) }

    /// The registrations published on the topics, and those the apps send to the gateway.
    var topicRegistrations: [Registration] { registrations.filter { !$0.viaGateway } }
    var gatewayRegistrations: [Registration] { registrations.filter(\.viaGateway) }

    /// The topic registrations among those the sign-ins are for.
    var firstHalf: [String] {
        registrations.prefix(max(1, registrations.count / 2)).filter { !$0.viaGateway }.map(\.request.registrationId)
    }

    private static func message(_ event: Event) -> OutgoingMessage {
        OutgoingMessage(event, producer: "registrar-chaos")
    }
}
