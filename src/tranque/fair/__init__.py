"""Verifiable deals: commitments, seeds, the HMAC stream, shuffle and verify. Imports rules only."""
