// swift-tools-version:6.0
import PackageDescription

/// Registrar: sign-up and sign-in workers chained through Kafka topics.
///
/// Layers, bottom up:
/// - C system libraries (`CRDKafka`, `CSodium`, `CSQLite`, `CVips` + `VipsShim`, `CPostgres`, `CCurl` + `CurlShim`,
///   `CPwquality`, `CZxcvbn`, `CMicroHTTPD` + `MicroHTTPDShim`):
///   thin wrappers, nothing else.
/// - `Support`: command-line conventions, JSON logs, signals, back-off, `Duration` conversions, and the metrics registry
///   (`MetricsRegistry`: counters, gauges, histograms in the Prometheus text format).
/// - `Kafka`: a Swift Kafka client over librdkafka that knows nothing of registration.
/// - `KafkaCommands`: `kafka-tool`'s commands, and the mock broker with its control socket.
/// - `HTTPServer`: libmicrohttpd (TLS by GnuTLS) behind an async handler, for the gateway and the console; and every
///   process's operations endpoint (`/metrics`, `/healthz`, `/readyz`) and the HTTP edges' TLS options (`Operations/`).
/// - `Curl`: libcurl's easy interface behind a Swift type, for S3 and SMTP (and the chaos run's apps).
/// - `Crypto`, `Imaging`: libsodium and libvips behind Swift value types (`Imaging`'s default limits are `Domain`'s
///   `ContractLimits`; it implements the core's `AvatarImaging` port too, refusals typed as reason codes).
/// - `Domain`: the topic contract (events, codec, reason codes), shared rules and the step protocol. No I/O library.
/// - `Accounts`: the account core every flow shares — the account aggregate and its store ports (with the records of
///   the sagas that change it), the other ports (profiles, objects, seals, tokens, codes, crypto), the rules of seals,
///   sessions, credentials, lockout and one-time codes, and `AccountOpening` (how sign-in opens an account through
///   registration). No I/O library.
/// - `Courier`: email messages (RFC 5322, multipart/alternative) from templates by locale (built in by the `EmbedFiles`
///   plugin, overridable from a directory) and the `Mailer` port. No I/O library.
/// - `Registration`, `Verification`, `SignIn`, `AccountChanges`: the flows — registration saga, code dispatch, token
///   requests and account changes: their steps and sagas, side by side on `Accounts` (and `Courier`); no flow imports
///   another, and the composition root (a role's assembly) wires one to another's port. No I/O library.
/// - `CryptoAdapters`: the libsodium implementations of the core's crypto ports.
/// - `PasswordQuality`: the libpwquality and zxcvbn implementations of `Domain`'s `PasswordBlocklist` port.
/// - `Backends`: where an installation keeps its stores (`BackendOptions`: a URL per store, else the data directory)
///   and its key files; the data directory's layout and the file stores kept there (objects, outbox: `Embedded/`). No
///   I/O library: each other store is opened by the module that implements it, so that a process links only the
///   libraries of the stores it opens. `StartupWait`: how a process waits out the outage of its stores at start.
/// - `SQLStores`: the SQL stores (accounts and sagas, changes, profiles, codes, tokens, answers), written once
///   over the `SQLDatabase` seam and its `SQLDialect`, which SQLite (`SQLite/`) and libpq (`Postgres/`) implement; and
///   how an installation opens its account and profile databases (and the codes, tokens and answers kept in the
///   account database), SQLite or PostgreSQL by URL, and sets up their schemas and roles (`Opening/`).
/// - `S3Store`: the production object store (libcurl); opens the object store, S3 or files by URL.
/// - `SMTPCourier`: the production `Mailer`, over SMTP (libcurl); opens the mailer, SMTP or the file outbox.
/// - `EventTransport`: how every Registrar process reaches Kafka — the connection options, an event as a Kafka message
///   with the standard headers and back, topic snapshots (workers, clients and tools alike).
/// - `WorkerRuntime`: the consume → handle → produce → commit loop with dead letters.
/// - `WorkerAssembly`: what the workers share and the system knows of each (`WorkerKind`: role, options, steps, letters;
///   the ACLs, the key distribution), their keys and how a worker process runs its stack. Links no store.
/// - `AccountAssembly`, `ImageAssembly`, `ProfileAssembly`, `CodeDispatchAssembly`: each role's composition root, how its
///   options build its stack (`RunnableWorker`), linking only its role's stores and C libraries; each depended on by its
///   executable and the tests alone.
/// - `RegistrarClient`: publish a request and await its outcome, seal secrets (the CLI, demo, chaos and tests).
/// - `Gateway`: the HTTPS edge the apps call (`registrar gateway`): endpoints over `HTTPServer`, requests through
///   `RegistrarClient`, and its composition from the command line. Testable in process (`Gateway.handle`).
/// - `Console`: the operators' view (`registrar console`, `status`'s saga paths, `dlq`, `audit`): reads Kafka and
///   the stores, serves escaped pages and a CSRF-guarded replay. Testable in process (`Console.handle`).
/// - `Installation`: a broker and the workers as processes in one data directory (demo, chaos, live tests), the keys
///   they share, and a cluster's topics created and checked from `Domain`'s table (Kafka Admin API, `registrar topics`).
/// - `DevTools`: `registrar-dev`'s commands — the local broker, the demo, chaos runs and the benchmarks; not the product.
/// - Executables, whose `main` only wires the above together: `registrar` (product commands only), `registrar-dev`,
///   the four workers (each its role's assembly alone: `WorkerLinkageTests`), `kafka-tool`.
let package = Package(
    name: "Registrar",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Kafka", targets: ["Kafka"]),
        .executable(name: "registrar", targets: ["registrar"]),
        .executable(name: "registrar-dev", targets: ["registrar-dev"]),
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
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CurlShim", dependencies: ["CCurl"]),
        .systemLibrary(name: "CPwquality", pkgConfig: "pwquality", providers: [.apt(["libpwquality-dev", "libcrack2-dev", "cracklib-runtime"])]),
        // zxcvbn-c ships no pkg-config file: its module map links it by name.
        .systemLibrary(name: "CZxcvbn", providers: [.apt(["libzxcvbn-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "MicroHTTPDShim", dependencies: ["CMicroHTTPD"]),

        // MARK: Libraries
        .target(name: "Kafka", dependencies: ["CRDKafka", "Support"]),
        .target(name: "Support"),
        .target(name: "HTTPServer", dependencies: ["MicroHTTPDShim", "CMicroHTTPD", "Support"]),
        .target(name: "KafkaCommands", dependencies: ["Kafka", "Support"]),
        .target(name: "Crypto", dependencies: ["CSodium", "Support"]),
        .target(name: "Imaging", dependencies: ["VipsShim", "Domain", "Accounts"]),
        .target(name: "Curl", dependencies: ["CurlShim", "Support"]),
        .target(name: "Domain", dependencies: ["Support"]),
        .target(name: "Accounts", dependencies: ["Domain", "Support"]),
        .target(name: "Courier", dependencies: ["Domain"], exclude: ["Templates"], plugins: ["EmbedFiles"]),
        // The flows, side by side on the account core: none imports another (`FlowBoundaryTests`).
        .target(name: "Registration", dependencies: ["Domain", "Accounts"]),
        .target(name: "Verification", dependencies: ["Domain", "Accounts", "Courier"]),
        .target(name: "SignIn", dependencies: ["Domain", "Accounts", "Courier"]),
        .target(name: "AccountChanges", dependencies: ["Domain", "Accounts", "Courier"]),
        .target(name: "CryptoAdapters", dependencies: ["Crypto", "Domain", "Accounts"]),
        .target(name: "PasswordQuality", dependencies: ["CPwquality", "CZxcvbn", "Domain"]),
        .target(name: "EventTransport", dependencies: ["Kafka", "Domain", "Crypto", "Support"]),
        .target(name: "WorkerRuntime", dependencies: ["Kafka", "Support", "Domain", "EventTransport", "Crypto"]),
        .target(name: "S3Store", dependencies: ["Curl", "Crypto", "Domain", "Accounts", "Support", "Backends"]),
        .target(name: "SMTPCourier", dependencies: ["Curl", "Courier", "Domain", "Support", "Backends"]),
        .target(name: "RegistrarClient", dependencies: ["Kafka", "Crypto", "Domain", "Accounts", "EventTransport", "Support"]),
        .target(name: "Gateway", dependencies: [
            "HTTPServer", "RegistrarClient", "Domain", "Accounts", "Crypto", "Support", "Backends", "EventTransport",
            "S3Store",
        ]),
        .target(name: "Console", dependencies: [
            "Accounts", "Backends", "Crypto", "Domain", "EventTransport", "HTTPServer", "Kafka", "S3Store", "SQLStores", "Support",
            "WorkerAssembly",
        ]),
        .target(name: "Installation", dependencies: ["Backends", "Crypto", "Domain", "EventTransport", "Kafka", "Support", "RegistrarClient"]),
        // Development tools (`registrar-dev`): the local broker, the demo, chaos runs and benchmarks.
        .target(name: "DevTools", dependencies: [
            "Backends", "Console", "Crypto", "CryptoAdapters", "Curl", "Domain", "EventTransport", "Gateway", "HTTPServer", "Imaging", "Installation",
            "Kafka", "KafkaCommands", "RegistrarClient", "Registration", "S3Store", "SignIn", "SQLStores", "Support",
        ]),
        .target(name: "Backends", dependencies: ["Crypto", "Domain", "Accounts", "Courier", "Support"]),
        // The SQL stores, written once over a dialect seam, its two implementations (SQLite, libpq), and their opening.
        .target(name: "SQLStores", dependencies: ["CSQLite", "CPostgres", "Backends", "Domain", "Accounts", "Support"]),

        // The workers' composition: what they share, then each role's (`WorkerLinkageTests`: each executable links
        // only its role's C libraries).
        .target(name: "WorkerAssembly", dependencies: [
            "Support", "Crypto", "Domain", "Accounts", "Registration", "Backends", "WorkerRuntime", "Kafka", "EventTransport",
            "Courier", "Verification", "SignIn", "AccountChanges", "CryptoAdapters", "HTTPServer",
        ]),
        .target(name: "AccountAssembly", dependencies: [
            "WorkerAssembly", "Backends", "SQLStores", "SMTPCourier", "PasswordQuality", "AccountChanges", "Accounts", "Courier", "Crypto",
            "CryptoAdapters", "Domain", "Registration", "SignIn", "Support", "Verification",
        ]),
        .target(name: "ImageAssembly", dependencies: [
            "WorkerAssembly", "Backends", "S3Store", "Crypto", "Domain", "Imaging", "Registration", "Support",
        ]),
        .target(name: "ProfileAssembly", dependencies: ["WorkerAssembly", "Backends", "SQLStores", "AccountChanges", "Domain", "Registration", "Support"]),
        .target(name: "CodeDispatchAssembly", dependencies: [
            "WorkerAssembly", "Backends", "SQLStores", "SMTPCourier", "Courier", "CryptoAdapters", "Domain", "Support", "Verification",
        ]),

        // MARK: Build tools
        // Embeds a target's `Templates` files in it (the mail templates of `Courier`), as `//go:embed` would.
        .executableTarget(name: "embed-files"),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["embed-files"], path: "Sources/EmbedFiles"),

        // MARK: Executables
        .executableTarget(name: "kafka-tool", dependencies: ["KafkaCommands", "Support"]),
        // The raw C librdkafka relay `kafka-tool bench relay` compares its Swift hops with (see its relay.c).
        .executableTarget(name: "relay-baseline", dependencies: ["CRDKafka"],
                          cSettings: [.define("REGISTRAR_VERSION", to: "\"0.9.0\"")]),  // RegistrarVersion.current; VersionTests compares
        .executableTarget(name: "registrar", dependencies: [
            "Kafka", "Support", "Crypto", "Domain", "Registration", "Backends", "SignIn", "EventTransport",
            "RegistrarClient", "Installation", "WorkerAssembly", "Gateway", "Console", "S3Store", "SQLStores",
        ]),
        .executableTarget(name: "registrar-dev", dependencies: ["DevTools", "Support"]),
        .executableTarget(name: "account-worker", dependencies: ["AccountAssembly", "WorkerAssembly"]),
        .executableTarget(name: "image-worker", dependencies: ["ImageAssembly", "WorkerAssembly"]),
        .executableTarget(name: "profile-worker", dependencies: ["ProfileAssembly", "WorkerAssembly"]),
        .executableTarget(name: "code-dispatch-worker", dependencies: ["CodeDispatchAssembly", "WorkerAssembly"]),

        // MARK: Tests
        .testTarget(name: "KafkaTests", dependencies: ["Kafka", "KafkaCommands", "Support", "TestSupport"]),
        .testTarget(name: "SupportTests", dependencies: ["Support", "TestSupport"]),
        .testTarget(name: "CurlTests", dependencies: ["Curl", "TestSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "Support", "TestSupport"]),
        .testTarget(name: "GatewayTests", dependencies: ["Gateway", "HTTPServer", "TestSupport"]),
        .testTarget(name: "WorkerRuntimeTests", dependencies: ["WorkerRuntime", "Domain", "Kafka", "Support", "Crypto", "EventTransport", "TestSupport"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "Support", "TestSupport"]),
        .testTarget(name: "EventTransportTests", dependencies: ["EventTransport", "Crypto", "Domain", "Kafka", "TestSupport"]),
        .testTarget(name: "PasswordQualityTests", dependencies: ["PasswordQuality", "Domain", "TestSupport"], exclude: ["reference_verdicts.py"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "Domain", "Support", "TestSupport"]),
        .testTarget(name: "DomainTests", dependencies: ["Domain", "Support", "TestSupport"]),
        .testTarget(name: "RoutingTests", dependencies: ["Domain", "Support", "TestSupport", "WorkerAssembly"]),
        .testTarget(name: "RegistrationTests", dependencies: ["Domain", "Registration", "TestSupport"]),
        .testTarget(name: "DevToolsTests", dependencies: ["DevTools", "AccountChanges", "Domain", "Registration", "TestSupport"]),
        .testTarget(name: "BackendsTests", dependencies: ["Backends", "TestSupport", "Domain", "Registration", "Courier"]),
        // What every test tier shares: the tags, the test servers, the fakes, and the systems (in process, live).
        .target(name: "TestSupport", dependencies: [
            "AccountChanges", "Backends", "Console", "Courier", "Crypto", "Curl", "Domain", "EventTransport", "Gateway", "HTTPServer", "Installation",
            "Kafka", "KafkaCommands", "RegistrarClient", "Registration", "SignIn", "Support", "Verification", "WorkerAssembly",
            "WorkerRuntime", "SQLStores", "S3Store", "AccountAssembly", "ImageAssembly", "ProfileAssembly", "CodeDispatchAssembly",
        ], path: "Tests/TestSupport"),
        // The store behaviour suites, each run on SQLite and on PostgreSQL (and on the fake of its port, if the unit tests keep
        // one: Tests/README.md, Fakes); then each driver's own tests.
        .testTarget(name: "StoreBehaviourTests", dependencies: [
            "Backends", "TestSupport", "Domain", "Registration", "Verification", "SignIn", "AccountChanges", "Courier",
            "CryptoAdapters", "SQLStores", "WorkerAssembly", "Installation", "Crypto",
            "RegistrarClient", "Support", "SMTPCourier", "AccountAssembly",
        ]),
        .testTarget(name: "SQLDriverTests", dependencies: [
            "SQLStores", "CSQLite", "TestSupport", "Domain", "Registration", "SignIn",
        ]),
        .testTarget(name: "S3StoreTests", dependencies: [
            "S3Store", "Curl", "Backends", "TestSupport", "Crypto", "Domain", "Registration",
        ]),
        .testTarget(name: "CourierTests", dependencies: ["Courier", "Domain", "TestSupport", "Support"]),
        .testTarget(name: "SMTPCourierTests", dependencies: ["SMTPCourier", "TestSupport", "Courier", "Domain"]),
        .testTarget(name: "EndToEndTests", dependencies: [
            "Kafka", "Support", "Crypto", "Domain", "Registration", "Backends", "WorkerRuntime", "TestSupport", "SignIn",
            "EventTransport", "RegistrarClient", "Installation", "SQLStores",
        ]),
        .testTarget(name: "VerificationTests", dependencies: [
            "Domain", "Courier", "Verification", "Backends", "SQLStores", "CryptoAdapters", "TestSupport", "Support",
        ]),
        .testTarget(name: "SignInTests", dependencies: [
            "Domain", "Registration", "Courier", "Verification", "SignIn", "AccountChanges", "TestSupport",
        ]),
        .testTarget(name: "SignInEndToEndTests", dependencies: [
            "Kafka", "Support", "Crypto", "Domain", "Registration", "Backends", "WorkerRuntime", "SignIn", "TestSupport",
            "EventTransport", "RegistrarClient", "Installation", "CryptoAdapters",
        ]),
        .testTarget(name: "WorkerAssemblyTests", dependencies: [
            "WorkerAssembly", "Backends", "Crypto", "Support", "TestSupport", "Domain", "EventTransport",
            "AccountAssembly", "ImageAssembly", "ProfileAssembly", "CodeDispatchAssembly",
        ]),
        // The Kafka-free tier: the workers' stacks driven directly (KafkaFreeSystem).
        .testTarget(name: "FlowTests", dependencies: ["Domain", "Registration", "RegistrarClient", "SignIn", "CryptoAdapters", "TestSupport"]),
        .testTarget(name: "InProcessTests", dependencies: [
            "Kafka", "Support", "Crypto", "Domain", "Registration", "Backends", "WorkerRuntime", "SignIn", "TestSupport",
            "EventTransport", "WorkerAssembly", "RegistrarClient", "Installation", "CryptoAdapters", "Gateway", "Console", "HTTPServer",
            "SQLStores", "S3Store",
        ]),
    ]
)
