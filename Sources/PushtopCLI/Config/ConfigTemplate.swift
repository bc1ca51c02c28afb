/// The commented `config.toml` that `pushtop config init` writes: every key, what it means, and a working
/// profile for a local `pushtop serve`.
enum ConfigTemplate {
    static let text = """
        # pushtop configuration (https://github.com/pushtop/pushtop#the-dashboard)
        # Checked by `pushtop config check`. Precedence: command-line options, then PUSHER_* and PUSHTOP_*
        # environment variables, then the profile (--profile NAME, PUSHTOP_PROFILE, or `profile` below),
        # then the top-level keys of this file.

        # The profile used when none is named.
        profile = "local"

        # The dashboard opens several apps at once, one connection each (like --profile a --profile b),
        # when no --profile is given. `A` selects the app that keys act on.
        # open = ["local", "staging"]

        # Dashboard theme: default, light, mono, solarized, gruvbox, a file name from the themes folder
        # (~/.config/pushtop/themes/NAME.toml), or a path.
        # theme = "solarized"

        # Settings at the top level apply to every profile; a profile's own keys win.
        # reconnect = "exponential"      # exponential, linear or none
        # max_retries = 6                # give up after N failed attempts in a row; 0 = forever
        # min_delay = 1.0                # reconnect delay bounds, seconds
        # max_delay = 60.0
        # activity_timeout = 120.0       # idle seconds before the client pings (default: the server's)
        # pong_timeout = 30.0            # seconds to wait for a pong before reconnecting

        # A local `pushtop serve` (its defaults).
        [profiles.local]
        key = "pushtop-key"
        host = "127.0.0.1"
        port = 6001
        tls = false
        secret = "pushtop-secret"        # signs private/presence subscriptions locally: development only
        app_id = "1"                     # with the secret: the channel browser (b) uses the HTTP API
        user_id = "dev"
        user_info = { name = "Dev" }
        channels = ["ticker", "chat", "presence-lobby"]

        # Pusher itself: an app on the eu cluster, authorized by your backend.
        # [profiles.staging]
        # key = "YOUR-APP-KEY"
        # cluster = "eu"                 # host ws-eu.pusher.com; or host = "..." and port = ... for soketi/Reverb
        # auth_endpoint = "https://staging.example.com/pusher/auth"
        # auth_headers = { Authorization = "Bearer TOKEN" }
        # auth_params = { team = "ops" }
        # channels = ["orders", "presence-ops"]
        # user_auth_endpoint = "https://staging.example.com/pusher/user-auth"
        # sign_in = true                 # pusher.signin() on every connection, through user_auth_endpoint
        # watchlist = ["alice", "bob"]   # when signing in locally with the secret
        # nodes = ["10.0.0.1:6001", "10.0.0.2:6001"]  # one connection per node of the app (like --node)
        # ca_file = "/etc/ssl/private-ca.pem"   # trust a private CA for wss://

        """
}
