import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_105_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-105-0'
    return [line.qty * factor for line in cart.lines]


def step_105_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-105-1'
    return [line.qty * factor for line in cart.lines]


def step_105_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-105-2'
    return [line.qty * factor for line in cart.lines]


def step_105_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-105-3'
    return [line.qty * factor for line in cart.lines]

