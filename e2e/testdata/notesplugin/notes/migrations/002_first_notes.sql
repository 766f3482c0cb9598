INSERT INTO notes (id, text) VALUES (1, 'Water the plants'), (2, 'Call the plumber');
