@testable import SQLStores
@testable import TestSupport
import Testing

/// PostgreSQL links to another host are verified by default; weaker modes must be set explicitly.
@Suite(.tags(.unit)) struct LinkSecurityTests {
    let none: [String: String] = [:]

    @Test func aRemoteHostWithoutAModeIsVerifiedFully() {
        #expect(LinkSecurity.conninfo("postgres://app:pw@db.example.com:5432/registrar", environment: none)
                    == "postgres://app:pw@db.example.com:5432/registrar?sslmode=verify-full")
        #expect(LinkSecurity.conninfo("postgresql://db.example.com/registrar?connect_timeout=2", environment: none)
                    == "postgresql://db.example.com/registrar?connect_timeout=2&sslmode=verify-full")
        #expect(LinkSecurity.conninfo("host=10.0.0.5 dbname=registrar", environment: none)
                    == "host=10.0.0.5 dbname=registrar sslmode=verify-full")
        #expect(LinkSecurity.conninfo("postgres://localhost,db.example.com/registrar", environment: none)
                    .hasSuffix("?sslmode=verify-full"), "one remote host among several")
    }

    @Test func anExplicitModeIsKept() {
        for url in ["postgres://db.example.com/registrar?sslmode=require", "host=db.example.com sslmode=disable"] {
            #expect(LinkSecurity.conninfo(url, environment: none) == url)
        }
        #expect(LinkSecurity.conninfo("postgres://db.example.com/registrar", environment: ["PGSSLMODE": "require"])
                    == "postgres://db.example.com/registrar")
    }

    @Test func localLinksKeepLibpqsDefault() {
        for url in ["postgres://postgres@127.0.0.1:5432/postgres", "postgres://localhost/registrar", "postgres:///registrar",
                    "host=/var/run/postgresql dbname=registrar", "postgresql://[::1]:5432/registrar"] {
            #expect(LinkSecurity.conninfo(url, environment: none) == url)
        }
    }

    @Test func anUnparsableURLIsLeftForLibpqToReport() {
        #expect(LinkSecurity.conninfo("postgres://db.example.com/x?nonsense=1", environment: none) == "postgres://db.example.com/x?nonsense=1")
    }
}
