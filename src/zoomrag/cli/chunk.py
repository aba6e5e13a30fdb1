"""(being written: the chunk command)"""
