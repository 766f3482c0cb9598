-- A booking's owner is who booked it (flights.Booking.Owner: the demo
-- names the conversation), and the bookings are listed to it alone.
-- Bookings made before owners were kept belong to no one.
ALTER TABLE bookings ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX bookings_by_owner ON bookings(owner);
