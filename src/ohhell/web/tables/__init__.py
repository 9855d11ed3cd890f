"""Live tables: one match in memory with its seats, clocks and bots
(``table``), who sits where (``seating``), claims, chat and the messages a
client sends (``messages``), the home page's open tables (``lobby``), the
thinking queue the bots and hints share (``thinking``), a client's
connection (``connection``), and who played each seat, for the ratings
(``played``)."""
