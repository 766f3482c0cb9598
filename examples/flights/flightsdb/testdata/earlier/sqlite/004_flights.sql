-- The flight catalogue the travel agents search and book (package
-- flights): seeded once, when the app first starts. Times are Unix
-- seconds, UTC; prices are in minor units of the currency.
CREATE TABLE flights (
    id         TEXT PRIMARY KEY,
    airline    TEXT NOT NULL,
    number     TEXT NOT NULL,
    from_city  TEXT NOT NULL,
    from_code  TEXT NOT NULL,
    to_city    TEXT NOT NULL,
    to_code    TEXT NOT NULL,
    departs    INTEGER NOT NULL,
    arrives    INTEGER NOT NULL,
    price      INTEGER NOT NULL,
    currency   TEXT NOT NULL,
    seats_left INTEGER NOT NULL CHECK (seats_left >= 0)
) STRICT;
CREATE INDEX flights_by_departure ON flights(departs);

-- A booking is one seat on one flight. key is the idempotency key it was
-- booked with: booking again with the key finds this row instead of
-- booking twice. The bookings are also the record of the seats taken
-- (which seats were free before any booking follows from the flight's id),
-- so (flight_id, seat) is unique, and the flight's seats_left goes down by
-- one with each.
CREATE TABLE bookings (
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL UNIQUE,
    reference  TEXT NOT NULL UNIQUE,
    flight_id  TEXT NOT NULL REFERENCES flights(id),
    seat       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (flight_id, seat)
) STRICT;
