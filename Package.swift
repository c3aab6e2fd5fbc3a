// swift-tools-version:6.0
import PackageDescription

/// Registrar: sign-up and sign-in workers chained through Kafka topics.
///
/// Layers, bottom up:
/// - C system libraries (`CRDKafka`, `CSodium`, `CSQLite`, `CVips` + `VipsShim`): thin wrappers, nothing else.
/// - `Kafka`: a Swift Kafka client over librdkafka that knows nothing of registration.
/// - `Support`: command-line conventions, JSON logs, signals.
/// - `Crypto`, `Imaging`: libsodium and libvips behind Swift value types.
/// - `Domain`: the topic contract (events, codec, reason codes), shared rules and the step protocol. No I/O library.
/// - `Registration`: the registration flow — saga logic, its steps and store protocols. No I/O library.
/// - `EmbeddedStores`: SQLite and file implementations of the store protocols.
/// - `Backends`: picks the store implementations an installation is configured with.
/// - `WorkerRuntime`: the consume → handle → produce → commit loop with dead letters.
/// - Executables, whose `main` only wires the above together.
let package = Package(
    name: "Registrar",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Kafka", targets: ["Kafka"]),
        .executable(name: "registrar", targets: ["registrar"]),
        .executable(name: "kafka-tool", targets: ["kafka-tool"]),
        .executable(name: "account-worker", targets: ["account-worker"]),
        .executable(name: "image-worker", targets: ["image-worker"]),
        .executable(name: "profile-worker", targets: ["profile-worker"]),
        .executable(name: "code-dispatch-worker", targets: ["code-dispatch-worker"]),
    ],
    targets: [
        // MARK: C system libraries
        .systemLibrary(name: "CRDKafka", pkgConfig: "rdkafka", providers: [.apt(["librdkafka-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .target(name: "VipsShim", dependencies: ["CVips"]),

        // MARK: Libraries
        .target(name: "Kafka", dependencies: ["CRDKafka"]),
        .target(name: "Support"),
        .target(name: "KafkaCommands", dependencies: ["Kafka", "Support"]),
        .target(name: "Crypto", dependencies: ["CSodium"]),
        .target(name: "Imaging", dependencies: ["VipsShim"]),
        .target(name: "Domain"),
        .target(name: "Registration", dependencies: ["Domain"]),
        .target(name: "EmbeddedStores", dependencies: ["CSQLite", "Domain", "Registration"]),
        .target(name: "WorkerRuntime", dependencies: ["Kafka", "Support", "Domain"]),
        .target(name: "Backends", dependencies: ["EmbeddedStores", "Domain", "Registration"]),

        // MARK: Executables
        .executableTarget(name: "kafka-tool", dependencies: ["KafkaCommands", "Support"]),
        .executableTarget(name: "registrar", dependencies: [
            "KafkaCommands", "Kafka", "Support", "Crypto", "Imaging", "Domain", "Registration", "Backends", "WorkerRuntime",
        ]),
        .executableTarget(name: "account-worker", dependencies: [
            "Support", "Crypto", "Domain", "Registration", "Backends", "WorkerRuntime",
        ]),
        .executableTarget(name: "image-worker", dependencies: [
            "Support", "Crypto", "Imaging", "Domain", "Registration", "Backends", "WorkerRuntime",
        ]),
        .executableTarget(name: "profile-worker", dependencies: [
            "Support", "Domain", "Registration", "Backends", "WorkerRuntime",
        ]),
        .executableTarget(name: "code-dispatch-worker", dependencies: [
            "Support", "Crypto", "Domain", "Registration", "Backends", "WorkerRuntime",
        ]),

        // MARK: Tests
        .testTarget(name: "KafkaTests", dependencies: ["Kafka", "Support"]),
        .testTarget(name: "SupportTests", dependencies: ["Support"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging"]),
        .testTarget(name: "DomainTests", dependencies: ["Domain"]),
        .testTarget(name: "RegistrationTests", dependencies: ["Domain", "Registration"]),
        .testTarget(name: "EmbeddedStoresTests", dependencies: ["EmbeddedStores", "Domain", "Registration"]),
        .testTarget(name: "EndToEndTests", dependencies: ["Kafka", "Support", "Crypto", "Domain", "Registration", "Backends", "WorkerRuntime"]),
    ]
)
