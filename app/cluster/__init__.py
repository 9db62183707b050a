"""Which process holds which room: alone on a database (its lease), or in a cluster over Redis.

Alone, a process holds its database's lease (:mod:`.sole`) and every room in it. In a cluster,
each room has one owner at a time, by a lease in Redis (:mod:`.leases`); any process serves any
request, relaying a room's traffic to its owner (:mod:`.relay`). :mod:`.node` puts it together.
"""
