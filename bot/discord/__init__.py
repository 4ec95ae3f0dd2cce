"""The Discord transport: ``/bg`` slash commands, game buttons that survive restarts, and a thread per match.

Everything here is presentation; the game service (``bot/service.py``) decides every rule.
"""
