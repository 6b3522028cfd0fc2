"""Helpers shared by the test modules (not tests themselves): database
builders, scripted servers, sign-in steps and small query and CLI runners."""
