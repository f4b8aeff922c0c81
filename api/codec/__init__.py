"""The two JSON codecs, named for what they hold: `untrusted_json` reads what a client sent (bounded in
depth, no lone surrogates); `own_json` writes our own JSON and reads back the documents we wrote."""
