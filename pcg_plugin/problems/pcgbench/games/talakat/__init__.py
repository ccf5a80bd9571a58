"""Talakat: a bullet-hell script, its engine and its Tracery grammar."""
