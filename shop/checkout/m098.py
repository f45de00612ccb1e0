import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_98_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-98-0'
    return [line.qty * factor for line in cart.lines]


def step_98_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-98-1'
    return [line.qty * factor for line in cart.lines]


def step_98_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-98-2'
    return [line.qty * factor for line in cart.lines]


def step_98_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-98-3'
    return [line.qty * factor for line in cart.lines]

