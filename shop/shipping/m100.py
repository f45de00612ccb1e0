import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_100_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-100-0'
    return [line.qty * factor for line in cart.lines]


def step_100_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-100-1'
    return [line.qty * factor for line in cart.lines]


def step_100_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-100-2'
    return [line.qty * factor for line in cart.lines]


def step_100_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-100-3'
    return [line.qty * factor for line in cart.lines]

