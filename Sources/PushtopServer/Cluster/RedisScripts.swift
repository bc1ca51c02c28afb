/// The Lua scripts that keep the cluster's registry in Redis. Each runs atomically, so one node makes each
/// decision (a member's first connection anywhere, a channel's first subscriber) and publishes it on the bus from
/// inside the script: every node hears presence changes in the one order Redis decided them.
///
/// Keys, under `K` = `{prefix}:{app id}:`:
/// - `K bus`: the pub/sub channel of ``ClusterMessage``s;
/// - `K subs`: channel → subscriptions across the cluster; `K ns:{node}`: channel → the node's subscriptions;
/// - `K pu:{channel}`: user id → connections across the cluster; `K pi:{channel}`: user id → `user_info`;
/// - `K np:{node}`: `channel\nsocket id` → user id, the node's presence connections;
/// - `K users`: user id → signed-in connections across the cluster; `K nu:{node}`: socket id → user id;
/// - `K alive:{node}`: the node's heartbeat (expires after the node timeout); `K nodes`: the nodes known.
///
/// ARGV[1] is always `K`, ARGV[2] the node id.
enum RedisScripts {
    /// A non-presence subscription. ARGV: K, node, channel, count events (1/0). Returns the cluster's count.
    static let subscribe = """
        local K, node, ch = ARGV[1], ARGV[2], ARGV[3]
        local c = redis.call('HINCRBY', K..'subs', ch, 1)
        redis.call('HINCRBY', K..'ns:'..node, ch, 1)
        if ARGV[4] == '1' then redis.call('PUBLISH', K..'bus', cjson.encode({k='sc', c=ch, n=c})) end
        return c
        """

    /// A presence subscription. ARGV: K, node, channel, socket id, user id, info JSON, member limit.
    /// Returns {'new'|'old'|'full', cluster count, {user id, info, ...}}.
    static let join = """
        local K, node, ch, sid, uid, info, limit = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7])
        local pu, pi = K..'pu:'..ch, K..'pi:'..ch
        local had = redis.call('HEXISTS', pu, uid) == 1
        if not had and redis.call('HLEN', pu) >= limit then return {'full', 0, {}} end
        redis.call('HINCRBY', pu, uid, 1)
        redis.call('HSET', pi, uid, info)
        redis.call('HSET', K..'np:'..node, ch..'\\n'..sid, uid)
        local c = redis.call('HINCRBY', K..'subs', ch, 1)
        redis.call('HINCRBY', K..'ns:'..node, ch, 1)
        if not had then redis.call('PUBLISH', K..'bus', cjson.encode({k='ma', c=ch, u=uid, i=info})) end
        return {had and 'old' or 'new', c, redis.call('HGETALL', pi)}
        """

    /// A connection left a channel. ARGV: K, node, channel, socket id, presence (1/0), count events (1/0).
    /// Returns {cluster count (-1: nothing was registered), user id removed or ''}.
    static let leave = """
        local K, node, ch, sid = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
        local ns = K..'ns:'..node
        if tonumber(redis.call('HGET', ns, ch) or '0') <= 0 then return {-1, ''} end
        local removed = ''
        if ARGV[5] == '1' then
          local np, field = K..'np:'..node, ch..'\\n'..sid
          local uid = redis.call('HGET', np, field)
          if not uid then return {-1, ''} end
          redis.call('HDEL', np, field)
          local pu = K..'pu:'..ch
          if redis.call('HINCRBY', pu, uid, -1) <= 0 then
            redis.call('HDEL', pu, uid)
            redis.call('HDEL', K..'pi:'..ch, uid)
            redis.call('PUBLISH', K..'bus', cjson.encode({k='mr', c=ch, u=uid}))
            removed = uid
          end
        end
        local c = redis.call('HINCRBY', K..'subs', ch, -1)
        if c <= 0 then redis.call('HDEL', K..'subs', ch); c = 0 end
        if redis.call('HINCRBY', ns, ch, -1) <= 0 then redis.call('HDEL', ns, ch) end
        if ARGV[6] == '1' and ARGV[5] ~= '1' and c > 0 then
          redis.call('PUBLISH', K..'bus', cjson.encode({k='sc', c=ch, n=c}))
        end
        return {c, removed}
        """

    /// A sign-in. ARGV: K, node, socket id, user id, watched user ids... Returns the watched users online.
    static let signIn = """
        local K, node, sid, uid = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
        if redis.call('HSETNX', K..'nu:'..node, sid, uid) == 1 then
          if redis.call('HINCRBY', K..'users', uid, 1) == 1 then
            redis.call('PUBLISH', K..'bus', cjson.encode({k='w', u=uid, s='online'}))
          end
        end
        local online = {}
        for i = 5, #ARGV do
          if redis.call('HEXISTS', K..'users', ARGV[i]) == 1 then table.insert(online, ARGV[i]) end
        end
        return online
        """

    /// A signed-in connection went away. ARGV: K, node, socket id.
    static let signOut = """
        local K, node, sid = ARGV[1], ARGV[2], ARGV[3]
        local uid = redis.call('HGET', K..'nu:'..node, sid)
        if not uid then return 0 end
        redis.call('HDEL', K..'nu:'..node, sid)
        if redis.call('HINCRBY', K..'users', uid, -1) <= 0 then
          redis.call('HDEL', K..'users', uid)
          redis.call('PUBLISH', K..'bus', cjson.encode({k='w', u=uid, s='offline'}))
        end
        return 1
        """

    /// Refreshes the node's heartbeat. ARGV: K, node, time to live in ms. Returns {1 when the node's heartbeat
    /// had not expired (0: the others may have removed it, so it must register again), {expired nodes}}.
    static let heartbeat = """
        local K, node = ARGV[1], ARGV[2]
        local alive = redis.call('EXISTS', K..'alive:'..node) == 1 and redis.call('SISMEMBER', K..'nodes', node) == 1
        redis.call('SET', K..'alive:'..node, '1', 'PX', ARGV[3])
        redis.call('SADD', K..'nodes', node)
        local dead = {}
        for _, n in ipairs(redis.call('SMEMBERS', K..'nodes')) do
          if redis.call('EXISTS', K..'alive:'..n) == 0 then table.insert(dead, n) end
        end
        return {alive and 1 or 0, dead}
        """

    /// Replaces what the cluster knows of a node by a snapshot (`self`: after a reconnection; `dead`: a node
    /// whose heartbeat expired, with an empty snapshot, only if it is still expired). ARGV: K, node, mode,
    /// count events (1/0), snapshot JSON `{"s":{channel:n}, "p":[[channel, socket id, user id, info]],
    /// "u":[[socket id, user id]]}`. Publishes the net changes (a member both removed and re-added is neither)
    /// and returns {occupied channels, vacated channels, {channel, user id, ...} added, {...} removed}.
    static let resync = """
        local K, node, mode = ARGV[1], ARGV[2], ARGV[3]
        if mode == 'dead' then
          if redis.call('EXISTS', K..'alive:'..node) == 1 then return {{}, {}, {}, {}} end
          redis.call('SREM', K..'nodes', node)
        end
        local snap = cjson.decode(ARGV[5])
        local bus, subs = K..'bus', K..'subs'
        local before = {}
        local function note(ch)
          if before[ch] == nil then before[ch] = tonumber(redis.call('HGET', subs, ch) or '0') end
        end
        local ns = K..'ns:'..node
        local old = redis.call('HGETALL', ns)
        for i = 1, #old, 2 do note(old[i]); redis.call('HINCRBY', subs, old[i], -tonumber(old[i + 1])) end
        redis.call('DEL', ns)
        local gone = {}
        local np = K..'np:'..node
        local oldp = redis.call('HGETALL', np)
        for i = 1, #oldp, 2 do
          local ch, uid = string.match(oldp[i], '^(.*)\\n'), oldp[i + 1]
          local pu = K..'pu:'..ch
          if redis.call('HINCRBY', pu, uid, -1) <= 0 then
            redis.call('HDEL', pu, uid)
            gone[ch..'\\n'..uid] = {ch, uid}
          end
        end
        redis.call('DEL', np)
        for ch, n in pairs(snap.s) do
          note(ch)
          redis.call('HINCRBY', subs, ch, n)
          redis.call('HSET', ns, ch, n)
        end
        local added, removed = {}, {}
        for _, e in ipairs(snap.p) do
          local ch, sid, uid, info = e[1], e[2], e[3], e[4]
          redis.call('HSET', np, ch..'\\n'..sid, uid)
          redis.call('HSET', K..'pi:'..ch, uid, info)
          if redis.call('HINCRBY', K..'pu:'..ch, uid, 1) == 1 then
            local key = ch..'\\n'..uid
            if gone[key] then gone[key] = nil else
              table.insert(added, ch); table.insert(added, uid)
              redis.call('PUBLISH', bus, cjson.encode({k='ma', c=ch, u=uid, i=info}))
            end
          end
        end
        for _, v in pairs(gone) do
          redis.call('HDEL', K..'pi:'..v[1], v[2])
          table.insert(removed, v[1]); table.insert(removed, v[2])
          redis.call('PUBLISH', bus, cjson.encode({k='mr', c=v[1], u=v[2]}))
        end
        local nu = K..'nu:'..node
        local oldu = redis.call('HGETALL', nu)
        local offline = {}
        for i = 1, #oldu, 2 do
          local uid = oldu[i + 1]
          if redis.call('HINCRBY', K..'users', uid, -1) <= 0 then
            redis.call('HDEL', K..'users', uid); offline[uid] = true
          end
        end
        redis.call('DEL', nu)
        for _, e in ipairs(snap.u) do
          redis.call('HSET', nu, e[1], e[2])
          if redis.call('HINCRBY', K..'users', e[2], 1) == 1 then
            if offline[e[2]] then offline[e[2]] = nil
            else redis.call('PUBLISH', bus, cjson.encode({k='w', u=e[2], s='online'})) end
          end
        end
        for uid, _ in pairs(offline) do redis.call('PUBLISH', bus, cjson.encode({k='w', u=uid, s='offline'})) end
        local occupied, vacated = {}, {}
        for ch, b in pairs(before) do
          local a = tonumber(redis.call('HGET', subs, ch) or '0')
          if a <= 0 then redis.call('HDEL', subs, ch); a = 0 end
          if b <= 0 and a > 0 then table.insert(occupied, ch) elseif b > 0 and a <= 0 then table.insert(vacated, ch) end
          if a ~= b and a > 0 and ARGV[4] == '1' and string.sub(ch, 1, 9) ~= 'presence-' then
            redis.call('PUBLISH', bus, cjson.encode({k='sc', c=ch, n=a}))
          end
        end
        return {occupied, vacated, added, removed}
        """
}
