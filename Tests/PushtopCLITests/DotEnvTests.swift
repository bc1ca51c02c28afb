import PushtopConfig
import Testing

@testable import PushtopCLI

/// `.env` files as Laravel (phpdotenv) and dotenv write them, read through the Reverb, Pusher and soketi conventions.
@Suite struct DotEnvTests {
    @Test func quotesCommentsExportAndEscapes() throws {
        let file = try DotEnvFile.parse(
            #"""
            # a comment
            APP_NAME=Laravel
            export EXPORTED=yes
            PLAIN=value # trailing comment
            HASH=a#b
            SINGLE='literal ${APP_NAME} \n # not a comment'
            DOUBLE="line\nnext \"quoted\" \$5 # kept"
            SPACES =  padded   
            EMPTY=
            MULTI="first
            second"
            WINDOWS=crlf\#r
            """#, path: ".env")
        #expect(file.value("APP_NAME") == "Laravel")
        #expect(file.value("EXPORTED") == "yes")
        #expect(file.value("PLAIN") == "value")
        #expect(file.value("HASH") == "a#b")
        #expect(file.value("SINGLE") == #"literal ${APP_NAME} \n # not a comment"#)
        #expect(file.value("DOUBLE") == "line\nnext \"quoted\" $5 # kept")
        #expect(file.value("SPACES") == "padded")
        #expect(file.value("EMPTY") == "")
        #expect(file.value("MULTI") == "first\nsecond")
        #expect(file.value("WINDOWS") == "crlf")
        #expect(file.entry("MULTI")?.line == 10)
    }

    @Test func referencesReachKeysAboveThenTheEnvironment() throws {
        let file = try DotEnvFile.parse(
            """
            REVERB_APP_KEY=k1
            VITE_REVERB_APP_KEY="${REVERB_APP_KEY}"
            VITE_HOST=${FROM_ENV}
            WITH_DEFAULT=${NOT_SET:-fallback}
            UNKNOWN=${NOT_SET}x
            """, path: ".env", environment: ["FROM_ENV": "env-host"])
        #expect(file.value("VITE_REVERB_APP_KEY") == "k1")
        #expect(file.value("VITE_HOST") == "env-host")
        #expect(file.value("WITH_DEFAULT") == "fallback")
        #expect(file.value("UNKNOWN") == "x")
    }

    @Test func malformedLinesNameTheLine() {
        #expect(throws: ConfigError(source: ".env:3", message: "the double quote opened here is never closed")) {
            try DotEnvFile.parse("A=1\n\nB=\"open\nC=2\n", path: ".env")
        }
        #expect(throws: ConfigError(source: ".env:2", message: "expected '=' after JUSTAWORD, found ''")) {
            try DotEnvFile.parse("A=1\nJUSTAWORD\n", path: ".env")
        }
        #expect(throws: ConfigError(source: ".env:1", message: "unexpected 'trailing' after the value of A")) {
            try DotEnvFile.parse("A='x' trailing\n", path: ".env")
        }
    }

    @Test func laravelReverb() throws {
        let s = try DotEnvSettings.read(
            DotEnvFile.parse(
                """
                BROADCAST_CONNECTION=reverb
                PUSHER_APP_KEY=
                REVERB_APP_ID=448512
                REVERB_APP_KEY=reverb-key
                REVERB_APP_SECRET=reverb-secret
                REVERB_HOST="localhost"
                REVERB_PORT=8080
                REVERB_SCHEME=http

                VITE_REVERB_APP_KEY="${REVERB_APP_KEY}"
                """, path: ".env"))
        #expect(s.convention == .reverb)
        #expect(s.profile.key == "reverb-key" && s.profile.secret == "reverb-secret" && s.profile.appID == "448512")
        #expect(s.profile.host == "localhost" && s.profile.port == 8080 && s.profile.tls == false)
        #expect(s.source(of: "key") == "REVERB_APP_KEY (line 4)")
        #expect(s.source(of: "tls") == "REVERB_SCHEME (line 8)")
    }

    @Test func laravelPusherAndTheViteCopies() throws {
        let s = try DotEnvSettings.read(
            DotEnvFile.parse(
                """
                BROADCAST_DRIVER=pusher
                PUSHER_APP_ID=1234
                PUSHER_APP_SECRET=pusher-secret
                PUSHER_HOST=
                PUSHER_PORT=443
                PUSHER_SCHEME=https
                PUSHER_APP_CLUSTER=eu
                VITE_PUSHER_APP_KEY=pusher-key
                MIX_PUSHER_APP_KEY="${VITE_PUSHER_APP_KEY}"
                """, path: ".env"))
        #expect(s.convention == .pusher)
        #expect(s.profile.key == "pusher-key" && s.source(of: "key") == "VITE_PUSHER_APP_KEY (line 8)")
        #expect(s.profile.host == nil && s.profile.cluster == "eu" && s.profile.tls == true && s.profile.port == 443)
    }

    @Test func soketiDefaults() throws {
        let s = try DotEnvSettings.read(
            DotEnvFile.parse(
                """
                SOKETI_DEFAULT_APP_ID=app-id
                SOKETI_DEFAULT_APP_KEY=app-key
                SOKETI_DEFAULT_APP_SECRET=app-secret
                SOKETI_PORT=6002
                """, path: "soketi.env"))
        #expect(s.convention == .soketi)
        #expect(
            s.profile.key == "app-key" && s.profile.port == 6002 && s.profile.host == "127.0.0.1"
                && s.profile.tls == false)
        #expect(s.assumed["host"] != nil && s.source(of: "port") == "SOKETI_PORT (line 4)")
    }

    @Test func missingKeyAndBadPortNameKeyAndLine() {
        #expect(
            throws: ConfigError(
                source: ".env:2", key: "REVERB_APP_KEY",
                message: "missing (BROADCAST_CONNECTION=reverb on line 2 needs it)")
        ) {
            try DotEnvSettings.read(DotEnvFile.parse("APP_NAME=x\nBROADCAST_CONNECTION=reverb\n", path: ".env"))
        }
        #expect(throws: ConfigError(source: ".env:1", key: "REVERB_APP_KEY", message: "is empty")) {
            try DotEnvSettings.read(DotEnvFile.parse("REVERB_APP_KEY=\n", path: ".env"))
        }
        #expect(
            throws: ConfigError(
                source: ".env:2", key: "REVERB_PORT", message: "expected a port 1-65535, found 'eighty'")
        ) {
            try DotEnvSettings.read(DotEnvFile.parse("REVERB_APP_KEY=k\nREVERB_PORT=eighty\n", path: ".env"))
        }
        #expect(throws: ConfigError.self) {
            try DotEnvSettings.read(DotEnvFile.parse("APP_NAME=Laravel\n", path: ".env"))
        }
    }
}
