import PusherProtocol

/// Everything that can happen to the dashboard: the only input of ``DashboardState/reduce(_:)``.
public enum UIEvent: Sendable {
    /// A batch of client events (everything the client delivered since the last pull), from one app (its
    /// index in ``DashboardState/apps``).
    case client([ClientEvent], app: Int = 0)
    /// A key press.
    case key(Key)
    /// Text pasted or typed quickly (only used by prompts).
    case paste(String)
    /// A mouse click or wheel turn.
    case mouse(MouseAction)
    /// The terminal's new size.
    case resize(Size)
    /// The clock: seconds since 1970.
    case tick(now: Double)
    /// Client events the dashboard itself had to drop (its inbox was full).
    case dropped(Int)
    /// A message from the runner (e.g. where the log was saved).
    case notice(String, isError: Bool)
    /// WebSocket frames from the client's frame tap, and how many the tap has dropped so far in all.
    case frames([WireFrame], droppedUpstream: Int, app: Int = 0)
    /// Recording started (to this file) or stopped (`nil`).
    case recording(path: String?)
    /// Where a replay stands (position, speed, playing): set by the replay runner.
    case replay(ReplayStatus)
    /// The HTTP API's list of occupied channels, or why it failed.
    case occupiedChannels([OccupiedChannel]?, error: String?, app: Int = 0)
    /// The HTTP API's user ids of a presence channel, or why it failed.
    case presenceUsers(channel: String, userIDs: [String]?, error: String?, app: Int = 0)
    /// An answer to a request to the nodes of one app (``NodeRequest``).
    case nodes(NodeAnswer)
    /// What the debug console's sources posted since the last frame.
    case console(ConsoleUpdate)
}

/// What `reduce` asks the outside world to do: talk to the client, save a file, quit. Effects that talk to
/// an app (subscribe, sign in, the HTTP API) act on the selected app (``DashboardState/selectedApp``).
public enum Effect: Sendable, Hashable {
    case subscribe(String)
    case unsubscribe(String)
    case trigger(channel: String, event: String, data: JSONValue)
    case connect
    case disconnect
    /// Sign the user in (on this and every later connection).
    case signIn
    /// Stop being signed in.
    case signOut
    /// Write the log (as JSON lines) to a file; the runner reports the result with a ``UIEvent/notice(_:isError:)``.
    case saveLog
    /// Apply the theme of this name.
    case applyTheme(String)
    /// Clear and repaint the whole terminal.
    case redraw
    /// Start or stop recording what the dashboard receives.
    case toggleRecording
    /// A replay control (play/pause, step, speed, jump).
    case replay(ReplayCommand)
    /// Ask the HTTP API for the occupied channels; the answer comes back as ``UIEvent/occupiedChannels(_:error:)``.
    case fetchOccupiedChannels
    /// Ask the HTTP API for a presence channel's users (``UIEvent/presenceUsers(channel:userIDs:error:)``).
    case fetchPresenceUsers(String)
    /// A request to one of several nodes (the cross-node canary), answered with ``UIEvent/nodes(_:)``.
    case nodes(NodeRequest)
    /// Close a socket with a close code, through `pushtop proxy`'s control endpoint (``AppAPI/closeSocket(socketID:code:)``);
    /// the runner reports the result with a ``UIEvent/notice(_:isError:)``.
    case closeSocket(socketID: String, code: Int)
    case quit
}
