# What `cargo workbook api` says (tests/api_server.rs, and stage 9's reaper from
# tests/stage9_api.rs). The commands it prints are facts: the same in every language.

api-your-exercise = your exercise
api-the-model-answer = the model answer
api-on-one-instance = on { $url }
api-on-instances = as { $count } instances (each a process of its own, one database): { $urls }
api-served = Stage { $stage }'s POST /payments ({ $which }) { $instances }, database { $name }.
api-beside-it = Beside it: { $what }.
api-beside-each-instance = Beside it, on each instance: { $what }.
api-the-reaper = the reaper, every { $every } s, deleting the keys older than { $hours } h
api-pay = Pay (run it twice: the second is a replay):
api-look-at-the-rows = Look at the rows:
api-probe-it = Probe it (from another terminal):
api-ctrl-c = Ctrl-C stops it and drops the database.
api-stopped = Stopped; database { $name } dropped.
api-port-argument = --port takes a number from 0 (any free port) to 65535
api-instances-argument = --instances takes a number from 1 to 16
api-unknown-argument = unknown argument { $given } (only --port N and --instances K)
api-past-last-port = { $instances } instances from port { $port } go past 65535: pick a lower --port
api-listen = cannot listen on 127.0.0.1:{ $port } ({ $error }): is another server there? `cargo workbook api --port N` picks another (0: any free port)
