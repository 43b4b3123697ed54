"""The Discord face every feature shares: answers, controls, boards, the App."""
